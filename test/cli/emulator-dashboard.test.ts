import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { request } from 'undici';
import { runCli, spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { memoryStateFile } from '../kit/emulator-state.js';
import { runCliInProcess, until } from '../kit/index.js';

// emulator start and dashboard --open run as processes (--open leaves a timer that removes its
// page); the other dashboard commands run in this process.

/** The link a private redirect page (what --open gives the browser) sends the browser on to. */
async function redirectTarget(opened: string): Promise<string> {
  expect(opened).toMatch(/^file:\/\//);
  return /content="0;url=([^"]+)"/.exec(await readFile(fileURLToPath(opened), 'utf8'))![1];
}

/** A BROWSER script that appends each URL it is given to a file; `opened` gives the links the pages redirect to. */
async function recordingBrowser(
  dir: string,
): Promise<{ env: { BROWSER: string }; opened: () => Promise<string[]> }> {
  const log = join(dir, 'opened.txt');
  const script = join(dir, 'browser.sh');
  await writeFile(script, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
  await chmod(script, 0o755);
  return {
    env: { BROWSER: script },
    opened: async () =>
      Promise.all(
        (await readFile(log, 'utf8').catch(() => ''))
          .split('\n')
          .filter((l) => l !== '')
          .map(redirectTarget),
      ),
  };
}

/** Signs in with a link's code, as the page does: the status, the session token answered, and any cookie set (none). */
async function signIn(
  dashboardUrl: string,
): Promise<{ status: number; session: string | undefined; cookie: unknown }> {
  const url = new URL(dashboardUrl);
  const code = /^#login=(.+)$/.exec(url.hash)![1];
  const response = await request(`${url.origin}/_emulator/dashboard/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const body = JSON.parse(await response.body.text()) as { data?: { session?: string } };
  return {
    status: response.statusCode,
    session: body.data?.session,
    cookie: response.headers['set-cookie'],
  };
}

describe('the dashboard link from the CLI', () => {
  test('emulator start --json --open: dashboardUrl in the JSON, opened through BROWSER, good once', async () => {
    const config = await tempConfigDir();
    const browser = await recordingBrowser(config);
    const proc = spawnCli(
      [
        'emulator',
        'start',
        '--in-memory',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--json',
        '--open',
      ],
      { env: { PLUGSMITH_CONFIG_DIR: config, ...browser.env } },
    );
    const ready = JSON.parse(await proc.nextLine()) as {
      url: string;
      dashboardUrl: string;
      adminToken: string;
    };
    expect(ready.dashboardUrl).toMatch(
      new RegExp(`^${ready.url}/_emulator/dashboard/#login=[A-Za-z0-9_-]{20,}$`),
    );
    // The state file other commands read holds no login link.
    expect(await readFile(memoryStateFile(config, proc.child.pid!), 'utf8')).not.toContain(
      'login=',
    );
    expect(
      await until('the browser to be opened', async () => {
        const opened = await browser.opened();
        return opened.length > 0 && opened;
      }),
    ).toEqual([ready.dashboardUrl]);

    const first = await signIn(ready.dashboardUrl);
    expect(first.status).toBe(200);
    expect(first.session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(first.cookie).toBeUndefined();
    expect((await signIn(ready.dashboardUrl)).status).toBe(401);

    // `emulator dashboard` mints another link from the running emulator (admin token from the state file).
    const human = await runCli(['emulator', 'dashboard', '--open'], {
      env: { PLUGSMITH_CONFIG_DIR: config, ...browser.env },
    });
    expect(human.code).toBe(0);
    const link = /^Dashboard: (\S+)$/m.exec(human.stdout)?.[1];
    expect(link).toMatch(new RegExp(`^${ready.url}/_emulator/dashboard/#login=`));
    expect(link).not.toBe(ready.dashboardUrl);
    expect(
      await until('the browser to be opened again', async () => {
        const opened = await browser.opened();
        return opened.length > 1 && opened;
      }),
    ).toEqual([ready.dashboardUrl, link]);
    expect(human.stdout + human.stderr).not.toContain(ready.adminToken);

    const json = await runCliInProcess(['emulator', 'dashboard', '--json'], {
      env: { PLUGSMITH_CONFIG_DIR: config },
    });
    expect(json.code).toBe(0);
    const minted = JSON.parse(json.stdout) as { url: string; dashboardUrl: string };
    expect(minted.url).toBe(ready.url);
    expect((await signIn(minted.dashboardUrl)).status).toBe(200);
    expect((await signIn(link!)).status).toBe(200);
    await proc.stop('SIGTERM');
  });

  test('emulator start without --json prints a Dashboard: line', async () => {
    const config = await tempConfigDir();
    const proc = spawnCli(
      ['emulator', 'start', '--in-memory', '--port', '0', '--messaging-port', '0'],
      { env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    const line = await proc.lineMatching(/^Dashboard: /);
    expect(line).toMatch(
      /^Dashboard: http:\/\/127\.0\.0\.1:\d+\/_emulator\/dashboard\/#login=[A-Za-z0-9_-]+$/,
    );
    await proc.stop('SIGTERM');
  });

  test('emulator dashboard with no running emulator exits 4 and says how to start one; a named one that does not answer is 7', async () => {
    const config = await tempConfigDir();
    const none = await runCliInProcess(['emulator', 'dashboard'], {
      env: { PLUGSMITH_CONFIG_DIR: config, PLUGSMITH_BASE_URL: '' },
    });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('plugsmith emulator start');
    // A URL where nothing listens is a network error, as for every admin command (docs/exit-codes.md).
    const dead = await runCliInProcess(
      ['emulator', 'dashboard', '--base-url', 'http://127.0.0.1:9'],
      { env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    expect(dead.code).toBe(7);
    expect(dead.stderr).toContain('http://127.0.0.1:9/_emulator/dashboard/login-links');
  });
});
