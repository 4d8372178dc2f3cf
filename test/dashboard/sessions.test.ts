import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { freePort } from '../kit/ports.js';
import { expectNoConsoleErrors, newContext, openDashboard } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-dashboard-sessions-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Trades a login link's code for a session token, as the page does. */
async function signIn(link: string): Promise<string> {
  const url = new URL(link);
  const response = await request(`${url.origin}/_emulator/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: /#login=(.+)$/.exec(url.hash)![1] }),
  });
  const body = (await response.body.json()) as { data: { session: string } };
  return body.data.session;
}

async function sessionStatus(url: string, session: string): Promise<number> {
  const response = await request(`${url}/_emulator/dashboard/session`, {
    headers: { 'x-plugsmith-session': session },
  });
  await response.body.dump();
  return response.statusCode;
}

describe('dashboard sessions across restarts', () => {
  it('a session outlives a restart of the same store (its hash kept owner-only in the data dir); a signed-out one does not; in memory, none does', async () => {
    const dir = await dataDir();
    const port = await freePort();
    let emu = await startEmulator({ dataDir: dir, port });
    const kept = await signIn(emu.dashboardLink());
    const ended = await signIn(emu.dashboardLink());
    await request(`${emu.url}/_emulator/dashboard/session`, {
      method: 'DELETE',
      headers: { 'x-plugsmith-session': ended },
    }).then((r) => r.body.dump());
    await emu.close();

    const file = join(dir, 'dashboard-sessions.json');
    expect((await stat(file)).mode & 0o077).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(kept);

    emu = await startEmulator({ dataDir: dir, port: 0 });
    onTestFinished(() => emu.close());
    expect(await sessionStatus(emu.url, kept)).toBe(200);
    expect(await sessionStatus(emu.url, ended)).toBe(401);

    // Closed by the test: a session of an in-memory emulator ends with it, which the next start shows.
    const memory = await startEmulator();
    const session = await signIn(memory.dashboardLink());
    expect(await sessionStatus(memory.url, session)).toBe(200);
    await memory.close();
    const again = await emulator();
    expect(await sessionStatus(again.url, session)).toBe(401);
  });

  it('in the browser: an open tab stays signed in through a restart, and a new login link pasted into a signed-out tab signs it in', async () => {
    const dir = await dataDir();
    const port = await freePort();
    let emu = await startEmulator({ dataDir: dir, port });
    const { page, consoleErrors } = await openDashboard(emu, 'overview');
    await emu.close();
    // The same store on the same port (the same origin, where the tab keeps its session).
    emu = await startEmulator({ dataDir: dir, port });
    onTestFinished(() => emu.close());
    await page.reload();
    await page.getByRole('navigation', { name: 'Dashboard pages' }).waitFor();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The open tab's live stream of store changes was cut when the emulator stopped, and its reconnects were refused
    // until the emulator was back (on a loaded machine the restart takes long enough to see one): that, and only that.
    expectNoConsoleErrors(
      consoleErrors.filter(
        (e) =>
          !/(ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_REFUSED) \(http:\/\/127\.0\.0\.1:\d+\/_emulator\/stream\)/.test(
            e,
          ),
      ),
    );

    // A tab with no session: pasting a link changes only the hash (no page load); the page signs in.
    const context = await newContext();
    const tab = await context.newPage();
    await tab.goto(`${emu.url}/_emulator/dashboard/`);
    await tab.getByText('This dashboard needs a login link').waitFor();
    await tab.goto(emu.dashboardLink());
    await tab.getByRole('navigation', { name: 'Dashboard pages' }).waitFor({ timeout: 10_000 });
    expect(tab.url()).not.toContain('login=');
    await context.close();
  });
});
