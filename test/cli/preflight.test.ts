import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { stateFileOf } from '../kit/emulator-state.js';
import { until } from '../kit/index.js';

const bare = (configDir: string) => ({
  PLUGSMITH_CONFIG_DIR: configDir,
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_TOKEN: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
  PLUGSMITH_PROFILE: '',
});

/** A port held by this test process (so the CLI can name it: pid `process.pid`). */
async function heldPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as { port: number }).port;
}

async function project(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-preflight-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'preflight',
        description: 'd',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
        webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
      },
    }),
  );
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('preflight checks of dev and emulator start', { timeout: 60_000 }, () => {
  test('dev: the plugin port already taken is a clear error naming the port and the process, before anything starts', async () => {
    const port = await heldPort();
    const dir = await project({ 'server.js': 'setInterval(() => {}, 1000);' });
    const configDir = await tempConfigDir();
    const result = await runCli(
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
      { cwd: dir, env: bare(configDir), timeoutMs: 30_000 },
    );
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr).toBe(6); // conflict: the port is someone else's
    expect(result.stderr).toContain(`the plugin's port ${port} is in use by`);
    expect(result.stderr).toContain(`(pid ${process.pid})`);
    expect(result.stderr).toContain('--plugin-port');
    expect(result.stderr).not.toContain('emulator started');
  });

  test('dev: a requested emulator port that is taken is an error, not silently replaced', async () => {
    const port = await heldPort();
    const dir = await project({ 'server.js': 'setInterval(() => {}, 1000);' });
    const configDir = await tempConfigDir();
    const result = await runCli(
      [
        'dev',
        '--cmd',
        'node server.js',
        '--plugin-port',
        String(await freePort()),
        '--emulator-port',
        String(port),
        '--messaging-port',
        '0',
      ],
      { cwd: dir, env: bare(configDir), timeoutMs: 30_000 },
    );
    expect(result.signal).toBeNull();
    expect(result.code, result.stderr).toBe(6); // conflict: the port is someone else's
    expect(result.stderr).toContain(
      `cannot listen on 127.0.0.1:${port} (--emulator-port): port ${port} is in use by`,
    );
    expect(result.stderr).toContain(`(pid ${process.pid})`);
  });

  test('emulator start: a taken port names the port and the process', async () => {
    const port = await heldPort();
    const configDir = await tempConfigDir();
    const result = await runCli(
      ['emulator', 'start', '--port', String(port), '--messaging-port', '0', '--in-memory'],
      { env: bare(configDir) },
    );
    expect(result.code, result.stderr).toBe(6); // conflict: the port is someone else's
    expect(result.stderr).toContain(
      `cannot listen on 127.0.0.1:${port} (--port): port ${port} is in use by`,
    );
    expect(result.stderr).toContain(`(pid ${process.pid})`);
  });

  test('--port equal to --messaging-port: the two must differ (emulator start and dev)', async () => {
    const configDir = await tempConfigDir();
    const port = String(await freePort());
    const start = await runCli(
      ['emulator', 'start', '--port', port, '--messaging-port', port, '--in-memory'],
      { env: bare(configDir) },
    );
    expect(start.code).toBe(2);
    expect(start.stderr).toContain(`--port and --messaging-port must differ (both are ${port})`);
    const dir = await project();
    const dev = await runCli(['dev', '--emulator-port', port, '--messaging-port', port], {
      cwd: dir,
      env: bare(configDir),
    });
    expect(dev.code).toBe(2);
    expect(dev.stderr).toContain(
      `--emulator-port and --messaging-port must differ (both are ${port})`,
    );
  });

  test('a second emulator in the same project is refused, naming the running one; the state file stays; a dead one is taken over', async () => {
    const configDir = await tempConfigDir();
    const dir = await project();
    const first = spawnCli(
      ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory', '--json'],
      { cwd: dir, env: bare(configDir) },
    );
    const state = JSON.parse(await first.nextLine()) as { url: string; pid: number };
    const stateFile = stateFileOf(configDir, dir);
    const before = await readFile(stateFile, 'utf8');

    const second = await runCli(
      ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory'],
      { cwd: dir, env: bare(configDir) },
    );
    expect(second.code).toBe(6);
    expect(second.stderr).toContain(
      `an emulator already runs for ${realpathSync(dir)}: ${state.url} (pid ${state.pid}`,
    );
    expect(second.stderr).toContain('plugsmith emulator stop');
    expect(await readFile(stateFile, 'utf8')).toBe(before);
    const doctor = await runCli(['doctor', '--json'], { cwd: dir, env: bare(configDir) });
    expect(doctor.stdout).toContain(`running at ${state.url} (pid ${state.pid})`);

    // Killed without cleanup: its state file is stale, and the next start takes over.
    await first.stop('SIGKILL');
    const third = spawnCli(
      ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory', '--json'],
      { cwd: dir, env: bare(configDir) },
    );
    const taken = JSON.parse(await third.nextLine()) as { url: string; pid: number };
    expect(taken.pid).not.toBe(state.pid);
    expect(JSON.parse(await readFile(stateFile, 'utf8')).pid).toBe(taken.pid);
    expect(await third.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  test('dev: a plugin that crashes under a watcher that keeps running is reported at once, with its error', async () => {
    const port = await freePort();
    // Like `tsx watch`: the server dies, the watcher waits for a change, so no exit reaches dev.
    const dir = await project({
      'watcher.js':
        "require('node:child_process').spawn(process.execPath, ['server.js'], { stdio: 'inherit' }); setInterval(() => {}, 1000);",
      'server.js': "throw new Error('boom: PLUGIN_API_KEY is not set');",
    });
    const configDir = await tempConfigDir();
    const dev = spawnCli(
      [
        'dev',
        '--cmd',
        'node watcher.js',
        '--plugin-port',
        String(port),
        '--emulator-port',
        '0',
        '--messaging-port',
        '0',
        '--verify-timeout',
        '600',
      ],
      { cwd: dir, env: bare(configDir) },
    );
    await until('the crash report', () =>
      dev.stderr().includes('the plugin crashed: Error: boom: PLUGIN_API_KEY is not set'),
    );
    expect(dev.stderr()).toMatch(
      /\(pid \d+: node \S*server\.js, exit code 1\); `node watcher\.js` keeps running/,
    );
    expect(await dev.stop('SIGINT')).toEqual({ code: 0, signal: null });
  });
});
