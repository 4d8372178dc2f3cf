import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../../emulator/index.js';
import { call } from '../kit/http.js';
import { expectNoConsoleErrors, newContext, openDashboard } from '../kit/browser.js';
import { emulator, server } from '../kit/index.js';

// AUDIT (fixed by design): browsers do not keep cookies apart by port, so a session cookie of the
// emulator's host would reach ANY other server on that host name (a second emulator, a plugin's dev
// server, any localhost app with an XSS), which could replay it as the admin credential; and a page
// of another port could toss a cookie of the same name that shadows it. The dashboard therefore
// keeps its session token in localStorage (per origin: scheme, host AND port) and sends it as the
// x-plugsmith-session header; it holds no cookie at all.

const STORAGE_KEY = 'plugsmith.dashboard.session';

/** Another local web server on 127.0.0.1: its page fetches its own /_emulator path, reads its localStorage, tosses cookies; it records what reaches it. */
async function otherLocalServer(
  emulatorPort: string,
): Promise<{ url: string; received: IncomingHttpHeaders[] }> {
  const received: IncomingHttpHeaders[] = [];
  const { url } = await server((request, response) => {
    if (request.url?.startsWith('/_emulator/')) {
      received.push(request.headers);
      response.writeHead(204).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>other local app</title><script>
      // Cookies ignore ports: these land on the emulator's host too, with a more specific path than any real one.
      document.cookie = 'plugsmith_dashboard_${emulatorPort}=tossed; path=/_emulator/overview';
      document.cookie = '${SESSION_HEADER}=tossed; path=/_emulator';
      window.stored = { length: localStorage.length, session: localStorage.getItem('${STORAGE_KEY}') };
      fetch('/_emulator/anything', { credentials: 'include' }).then(() => { window.done = true; }, () => { window.done = true; });
    </script>`);
  });
  return { url: `${url}/`, received };
}

describe('the dashboard session (audit)', () => {
  it('reaches no other server on the same host name, cannot be read by its page, and a tossed cookie changes nothing', async () => {
    const emu = await emulator();
    const port = new URL(emu.url).port;

    const context = await newContext();
    const adminCalls: Array<Record<string, string>> = [];
    context.on('request', async (request) => {
      if (
        request.url().startsWith(`${emu.url}/_emulator/`) &&
        !request.url().includes('/dashboard/app.')
      )
        adminCalls.push(await request.allHeaders());
    });
    const { page, consoleErrors } = await openDashboard(emu, undefined, context);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const token = (await page.evaluate(`localStorage.getItem('${STORAGE_KEY}')`)) as string | null;
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await context.cookies(), 'the signed-in dashboard holds no cookie').toEqual([]);

    const other = await otherLocalServer(port);
    const otherPage = await context.newPage();
    await otherPage.goto(other.url);
    await otherPage.waitForFunction('window.done === true');

    // Nothing of the session arrived there: no cookie, no session header, and its page reads an empty storage.
    expect(other.received.length).toBe(1);
    expect(
      other.received[0].cookie ?? '',
      'a cookie reached another server on the same host',
    ).not.toContain(token!);
    expect(
      other.received[0][SESSION_HEADER],
      'the session header reached another server',
    ).toBeUndefined();
    expect(await otherPage.evaluate('window.stored')).toEqual({ length: 0, session: null });

    // The tossed cookies are in the browser for the emulator's host, and the dashboard does not care.
    expect(
      (await context.cookies(emu.url + '/_emulator/overview')).map((c) => c.name).sort(),
    ).toEqual([`plugsmith_dashboard_${port}`, SESSION_HEADER].sort());
    adminCalls.length = 0;
    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('row', { name: /^Plugins/ }).waitFor();
    const overviewCall = adminCalls.find((h) => h[SESSION_HEADER] !== undefined);
    expect(overviewCall?.[SESSION_HEADER]).toBe(token);
    // The page's admin calls send no cookie at all (fetch credentials 'omit'); the session is the header.
    expect(overviewCall?.cookie, 'the dashboard sent cookies to the admin API').toBeUndefined();
    expect(page.url()).not.toContain('login=');
    expectNoConsoleErrors(consoleErrors);
  });

  it('survives a reload, is shared by the tabs of this emulator, is unknown to another emulator, and a 401 signs the page out', async () => {
    const [emu, second] = await Promise.all([emulator(), emulator()]);
    const context = await newContext();
    const { page, consoleErrors } = await openDashboard(emu, undefined, context);
    const token = (await page.evaluate(`localStorage.getItem('${STORAGE_KEY}')`)) as string;

    await page.reload();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const tab = await context.newPage();
    await tab.goto(`${emu.url}/_emulator/dashboard/#/overview`);
    await tab.getByRole('heading', { name: 'Overview' }).waitFor();

    // Another emulator (another port: another origin) sees no stored session, and refuses this one.
    const elsewhere = await context.newPage();
    await elsewhere.goto(`${second.url}/_emulator/dashboard/`);
    await elsewhere.getByText('This dashboard needs a login link').waitFor();
    expect(await elsewhere.evaluate(`localStorage.getItem('${STORAGE_KEY}')`)).toBeNull();
    expect(
      (
        await call(second.url, 'GET', '/_emulator/overview', {
          headers: { [SESSION_HEADER]: token },
        })
      ).status,
    ).toBe(401);

    // The session ends (as when the emulator restarts): the next admin call (the Overview refreshes) is a 401;
    // the page drops the stored token and signs out, and so does the other tab, without a reload.
    expect(
      (
        await call(emu.url, 'DELETE', '/_emulator/dashboard/session', {
          headers: { [SESSION_HEADER]: token },
        })
      ).status,
    ).toBe(200);
    await page.getByText('This dashboard needs a login link').waitFor({ timeout: 20_000 });
    await tab.getByText('This dashboard needs a login link').waitFor({ timeout: 20_000 });
    expect(await page.evaluate(`localStorage.getItem('${STORAGE_KEY}')`)).toBeNull();
    await tab.reload();
    await tab.getByText('This dashboard needs a login link').waitFor();
    expect(consoleErrors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});
