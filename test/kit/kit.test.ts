import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import {
  admin,
  api,
  call,
  cli,
  emulator,
  emulatorEnv,
  receiver,
  refuse,
  type Receiver,
} from './index.js';
import { spawnedCli } from './spawn.js';
import { spawnCli } from './cli-process.js';
import { freePort } from './ports.js';
import { tempDir } from './index.js';
import { markedProcesses } from './processes.js';
import { RUN_MARK } from './run-setup.js';

// The kit owns what it starts: inside a test, until the test ends; outside one, until the file's tests end.

let shared: Emulator;
beforeAll(async () => {
  shared = await emulator();
});

describe('the test kit', () => {
  let early: Receiver;
  test('a receiver started in a test records requests, answers challenges, and is closed when the test ends', async () => {
    early = await receiver();
    const answer = await request(early.webhookUrl, {
      method: 'POST',
      body: JSON.stringify({ type: 'WEBHOOK_CHALLENGE', data: { challenge: 'c1' } }),
    });
    expect(await answer.body.json()).toEqual({ challenge: 'c1' });
    expect((await early.next((r) => r.json?.type === 'WEBHOOK_CHALLENGE')).url).toBe('/webhook');
    const refusing = await receiver(refuse(503));
    expect((await request(refusing.url)).statusCode).toBe(503);
  });

  test("... and the next test finds it closed, while the file's emulator still answers", async () => {
    await expect(request(early.url)).rejects.toThrow();
    expect((await api(shared).get('/api/plugins/plg_missing')).status).toBe(404);
    expect((await api(shared, { token: null }).get('/api/plugins/plg_missing')).status).toBe(401);
    expect((await admin(shared).get('/_emulator/health')).status).toBe(200);
  });

  test('call() sends a raw Authorization value as token and a bare token or key as bearer; none without either', async () => {
    const hook = await receiver();
    await call(hook.url, 'GET', '/raw', { token: 'Basic abc' });
    await call(hook.url, 'POST', '/bearer', { bearer: 'pst_x', body: { a: 1 } });
    await call(hook.url, 'GET', '/none', { bearer: null });
    const [raw, bearer, none] = hook.received;
    expect(raw!.headers.authorization).toBe('Basic abc');
    expect(bearer!.headers.authorization).toBe('Bearer pst_x');
    expect(bearer!.json).toEqual({ a: 1 });
    expect(none!.headers.authorization).toBeUndefined();
  });

  test('cli() runs a command in this process, with the outcome of the spawned CLI', async () => {
    const plugsmith = await cli(emulatorEnv(shared));
    const child = await spawnedCli(emulatorEnv(shared));
    const inside = await plugsmith.run(['plugins', 'get', 'plg_missing']);
    const spawned = await child.run(['plugins', 'get', 'plg_missing']);
    expect(inside.code).not.toBe(0);
    expect(inside.code).toBe(spawned.code);
    expect(inside.stderr.trim()).toBe(spawned.stderr.trim());
    const list = ['plugins', 'list', '--org', shared.orgId!];
    expect(await plugsmith.json(list)).toEqual(await child.json(list));
    // The same Io as src/cli.ts: control characters a server echoes are escaped in both.
    const hostile = ['plugins', 'get', 'plg_\u001b]0;title\u0007'];
    const [insideHostile, spawnedHostile] = [
      await plugsmith.run(hostile),
      await child.run(hostile),
    ];
    expect(insideHostile.stderr).toContain('plg_\\x1b]0;title\\x07');
    expect(insideHostile.stderr.trim()).toBe(spawnedHostile.stderr.trim());
  });

  test('the run has a home of its own', () => {
    expect(process.env.HOME).toContain('plugsmith-test-home-');
    expect(process.env.XDG_CACHE_HOME).toBe(`${process.env.HOME}/.cache`);
    expect(process.env.PLUGSMITH_TEST_RUN).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a wait on a long-running CLI's output is bounded, and a failed one shows what the process printed", async () => {
    const proc = spawnCli([
      'emulator',
      'start',
      '--in-memory',
      '--port',
      '0',
      '--messaging-port',
      '0',
    ]);
    expect(await proc.lineMatching(/management API/)).toMatch(/http:\/\/127\.0\.0\.1:\d+ /);
    // The lines read on the way stay in stdoutLines(), for a test that looks at them all.
    expect(proc.stdoutLines()[0]).toBe('plugsmith emulator ready');
    await expect(proc.lineMatching(/never printed/, { timeoutMs: 300 })).rejects.toThrow(
      /timed out after 300 ms waiting for a line on stdout matching \/never printed\/ of `plugsmith emulator start[^`]*`\nstdout \(its last lines\):\n {2}plugsmith emulator ready\n {4}management API/,
    );
    await expect(proc.stderrShows(/never printed/, { timeoutMs: 300 })).rejects.toThrow(
      /timed out after 300 ms waiting for stderr to show/,
    );
    await proc.stop();
    // The lines it printed before it ended are still read; then the wait ends with the process.
    await expect(proc.lineMatching(/never printed/)).rejects.toThrow(
      /`plugsmith emulator start[^`]*` ended \((code \d+|SIGTERM)\) before a line on stdout matching/,
    );

    const unknown = spawnCli(['nosuch']);
    await expect(unknown.nextLine()).rejects.toThrow(
      /`plugsmith nosuch` ended \(code 2\) before a line on stdout\n[\s\S]*stderr \(its last lines\):\n {2}error: unknown command 'nosuch'/,
    );
  });

  let pluginPid = 0;
  test("a long-running CLI is killed when its test ends, and what it started with it (dev's plugin runs in a process group of its own)", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'server.js'),
      "require('node:fs').writeFileSync('plugin.pid', String(process.pid)); require('node:http').createServer((q, s) => s.end('{}')).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('up'));",
    );
    await writeFile(
      join(dir, 'plugsmith.json'),
      JSON.stringify({
        plugin: {
          name: 'Left behind',
          description: 'x',
          type: 'APP',
          events: [],
          scopes: [],
          // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
          webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
        },
      }),
    );
    const port = await freePort();
    const dev = spawnCli(
      [
        'dev',
        '--cmd',
        'node server.js',
        '--plugin-port',
        String(port),
        '--emulator-port',
        '0',
        '--messaging-port',
        '0',
      ],
      { cwd: dir, env: { PLUGSMITH_CONFIG_DIR: dir } },
    );
    for (let i = 0; i < 600 && !dev.stderr().includes('plugin  up'); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(dev.stderr()).toContain('plugin  up');
    pluginPid = Number(await readFile(join(dir, 'plugin.pid'), 'utf8'));
    // The test ends with dev running: the kit kills it (SIGKILL, so dev itself cannot stop its plugin).
  });

  test('... and the next test finds the plugin gone', async () => {
    expect(pluginPid).toBeGreaterThan(0);
    // SIGKILL takes effect a moment after kill() returns; an exited orphan may stay a zombie a while.
    const alive = () => markedProcesses(RUN_MARK, process.env[RUN_MARK]!).includes(pluginPid);
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
  });
});
