import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { call } from '../kit/http.js';
import { newContext, openDashboard, screenshot } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator, server } from '../kit/index.js';

// A page of another origin, open in the same browser as a signed-in dashboard, tries what a
// malicious site would: read the session (its own localStorage is another origin's: empty), change
// state through the admin API with whatever the browser would attach (fetch with credentials, a
// form POST; the session is no cookie, so nothing is attached), frame the dashboard. Each must
// fail, and nothing change.

/** The attacker's page: runs every attack against `emu` and leaves the outcomes in window.results. */
function attackerPage(emu: Emulator): string {
  const target = JSON.stringify(emu.url);
  const orgId = JSON.stringify(emu.orgId);
  return `<!doctype html><meta charset="utf-8"><title>attacker</title>
<iframe name="sink" title="sink"></iframe>
<form id="reset" method="POST" action=${JSON.stringify(`${emu.url}/_emulator/reset`)} target="sink" enctype="text/plain"><input name='{"a":"' value='"}'></form>
<form id="link" method="POST" action=${JSON.stringify(`${emu.url}/_emulator/dashboard/login-links`)} target="sink"><input name="x" value="1"></form>
<iframe id="framed" title="framed" src=${JSON.stringify(`${emu.url}/_emulator/dashboard/`)}></iframe>
<script>
const T = ${target};
const outcome = (p) => p.then(async (r) => 'read ' + r.status + ' ' + (r.type === 'opaque' ? '(opaque)' : await r.text()), (e) => 'blocked: ' + e.name);
(async () => {
  const results = {};
  results.storage = 'stored ' + localStorage.length;
  results.readSession = await outcome(fetch(T + '/_emulator/dashboard/session', { credentials: 'include' }));
  results.readOverview = await outcome(fetch(T + '/_emulator/overview', { credentials: 'include' }));
  results.readExport = await outcome(fetch(T + '/_emulator/export', { credentials: 'include' }));
  results.mintLink = await outcome(fetch(T + '/_emulator/dashboard/login-links', { method: 'POST', credentials: 'include' }));
  results.resetSimple = await outcome(fetch(T + '/_emulator/reset', { method: 'POST', credentials: 'include', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' }));
  results.resetNoBody = await outcome(fetch(T + '/_emulator/reset', { method: 'POST', credentials: 'include', mode: 'no-cors' }));
  results.agentJson = await outcome(fetch(T + '/_emulator/agents', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgId: ${orgId}, name: 'Intruder' }) }));
  document.getElementById('reset').submit();
  await new Promise((r) => setTimeout(r, 300));
  document.getElementById('link').submit();
  await new Promise((r) => setTimeout(r, 300));
  window.results = results;
})();
</script>`;
}

async function serve(html: string): Promise<string> {
  const { url } = await server((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  return `${url}/`;
}

describe('a page of another origin, in the browser of a signed-in dashboard', () => {
  it('cannot read the session or any admin data, cannot change anything, cannot frame the dashboard', async () => {
    const emu = await emulator();
    // Something a reset would remove.
    const plugin = await call(emu.url, 'POST', '/api/plugins', {
      token: emu.token!,
      body: {
        orgId: emu.orgId,
        name: 'Keep me',
        description: 'd',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: 'http://127.0.0.1:9/hook',
      },
    });
    expect(plugin.status).toBe(201);
    const agents = emulatorInternals(emu).db.agents.size;

    const context = await newContext();
    const { page: dashboard } = await openDashboard(emu, undefined, context);
    await dashboard.getByRole('heading', { name: 'Overview' }).waitFor();

    const attacker = await context.newPage();
    const frameErrors: string[] = [];
    attacker.on('console', (m) => frameErrors.push(m.text()));
    await attacker.goto(await serve(attackerPage(emu)));
    await attacker.waitForFunction('window.results !== undefined', undefined, { timeout: 20_000 });
    const results = (await attacker.evaluate('window.results')) as Record<string, string>;

    // Reads fail (no CORS for other origins; the guard refuses them anyway), writes are refused.
    for (const key of ['readSession', 'readOverview', 'readExport', 'mintLink', 'agentJson'])
      expect(results[key], key).toMatch(/^blocked: TypeError$/);
    for (const key of ['resetSimple', 'resetNoBody'])
      expect(results[key], key).toBe('read 0 (opaque)');
    expect(results.storage).toBe('stored 0');
    const session = (await dashboard.evaluate(
      "localStorage.getItem('plugsmith.dashboard.session')",
    )) as string;
    expect(session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(JSON.stringify(results)).not.toContain(session);
    expect(JSON.stringify(results)).not.toContain(emu.adminToken);
    expect(JSON.stringify(results)).not.toContain(emu.token!);

    // Nothing changed: the plugin survived every reset attempt, no agent was added, no login link minted into the page.
    expect(emulatorInternals(emu).db.plugins.has(plugin.body.data.id)).toBe(true);
    expect(emulatorInternals(emu).db.agents.size).toBe(agents);
    const sink = attacker.frame({ name: 'sink' })!;
    expect(await sink.content()).not.toContain('#login=');

    // The framed dashboard never rendered.
    const framed = attacker
      .frames()
      .find((f) => f !== attacker.mainFrame() && f.name() !== 'sink')!;
    expect(await framed.getByRole('navigation', { name: 'Dashboard pages' }).count()).toBe(0);
    expect(await framed.content()).not.toContain('plugsmith emulator');
    await screenshot(attacker, 'hostile-attacker');

    // The signed-in dashboard still works: the attacks did not end or disturb the session.
    await dashboard.reload();
    await dashboard.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('no request URL, response, console line or emulator log line of a dashboard session carries the admin token, and no URL the session', async () => {
    const lines: string[] = [];
    const emu = await emulator({ log: (line) => lines.push(line), faults: 'duplicate=0.1' });
    const context = await newContext();
    const seen: string[] = [];
    context.on('request', (request) => {
      seen.push(request.url());
      seen.push(JSON.stringify(request.headers()));
    });
    context.on('response', async (response) => {
      const type = response.headers()['content-type'] ?? '';
      if (!type.includes('event-stream')) seen.push(await response.text().catch(() => ''));
    });
    const { page, consoleErrors } = await openDashboard(emu, undefined, context);
    page.on('console', (m) => seen.push(m.text()));
    for (const view of [
      'overview',
      'deliveries',
      'data',
      'trigger',
      'chat',
      'uploads',
      'install',
    ]) {
      await page.goto(new URL(`#/${view}`, page.url()).href);
      await page.waitForTimeout(300);
    }
    seen.push(page.url(), ...consoleErrors, ...lines);
    expect(lines.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.filter((s) => s.includes(emu.adminToken))).toEqual([]);
    // The session token travels only in its header: in no URL, and never as a cookie.
    const session = (await page.evaluate(
      "localStorage.getItem('plugsmith.dashboard.session')",
    )) as string;
    expect(session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(seen.filter((s) => s.startsWith('http') && s.includes(session))).toEqual([]);
    expect(
      lines.filter((line) => line.includes(session)),
      'the session token in the emulator log',
    ).toEqual([]);
    expect(await context.cookies()).toEqual([]);
  });
});
