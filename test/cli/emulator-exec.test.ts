import { existsSync } from 'node:fs';
import { cp, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { tempDir, freshMachine } from '../kit/index.js';

// `plugsmith emulator exec`: any test runner, in any language, gets a fresh emulator in its environment.

const PYTHON_PLUGIN = resolve(import.meta.dirname, '../fixtures/python-plugin');

/** A shell command that reads the environment and calls the API with node (no curl): exits 0 when the org's agents answer. */
const NODE_CHECK = `node -e '
const base = process.env.PLUGSMITH_BASE_URL, token = process.env.PLUGSMITH_TOKEN, org = process.env.PLUGSMITH_ORG_ID;
fetch(base + "/api/orgs/" + org + "/repositories", { headers: { authorization: "Bearer " + token } })
  .then(async (r) => { const body = await r.json(); console.log(JSON.stringify({ status: r.status, list: Array.isArray(body.data), admin: process.env.PLUGSMITH_ADMIN_TOKEN.slice(0, 4), messaging: /^http:/.test(process.env.PLUGSMITH_MESSAGING_URL), key: process.env.PLUGSMITH_API_KEY.slice(0, 4) })); process.exit(r.status === 200 ? 0 : 9); })
  .catch((e) => { console.error(e); process.exit(8); });
'`;

describe('plugsmith emulator exec', { timeout: 120_000 }, () => {
  test('a shell command gets the emulator in its environment; its exit code (and 128+n for a signal) is the exit code; the emulator is gone after', async () => {
    const env = await freshMachine();
    const cwd = await tempDir('plugsmith-exec-');
    const ok = await runCli(['emulator', 'exec', '--', 'sh', '-c', NODE_CHECK], { cwd, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      status: 200,
      list: true,
      admin: 'psa_',
      messaging: true,
      key: 'psk_',
    });

    // One word is a shell command line; the exit code comes through.
    const three = await runCli(['emulator', 'exec', '--', 'echo "$PLUGSMITH_BASE_URL"; exit 3'], {
      cwd,
      env,
    });
    expect(three.code).toBe(3);
    const url = three.stdout.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(fetch(`${url}/_emulator/health`)).rejects.toThrow();
    expect(three.stderr).not.toContain('exit code');

    const killed = await runCli(
      ['emulator', 'exec', '--', 'node', '-e', 'process.kill(process.pid, "SIGTERM")'],
      { cwd, env },
    );
    expect(killed.code).toBe(143);
    const missing = await runCli(['emulator', 'exec', '--', 'no-such-command-here', 'x'], {
      cwd,
      env,
    });
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('cannot run no-such-command-here: no such command');

    // Nothing is left behind: no state file, no data dir.
    expect(existsSync(join(env.PLUGSMITH_CONFIG_DIR, 'emulators'))).toBe(false);
    expect(await readdir(cwd)).toEqual([]);
  });

  test('SIGTERM passes to the command; --json prints the environment instead and serves until stopped', async () => {
    const env = await freshMachine();
    const cwd = await tempDir('plugsmith-exec-');
    const exec = spawnCli(
      [
        'emulator',
        'exec',
        '--',
        'node',
        '-e',
        'process.on("SIGTERM", () => { console.log("got SIGTERM"); process.exit(5); }); console.log("ready"); setInterval(() => {}, 1000);',
      ],
      { cwd, env },
    );
    expect(await exec.nextLine()).toBe('ready');
    exec.child.kill('SIGTERM');
    expect(await exec.nextLine()).toBe('got SIGTERM');
    expect(
      await new Promise((r) =>
        exec.child.exitCode !== null
          ? r(exec.child.exitCode)
          : exec.child.once('exit', (code) => r(code)),
      ),
    ).toBe(5);

    const json = spawnCli(['emulator', 'exec', '--json'], { cwd, env });
    const environment = JSON.parse(await json.nextLine());
    expect(Object.keys(environment).sort()).toEqual([
      'PLUGSMITH_ADMIN_TOKEN',
      'PLUGSMITH_API_KEY',
      'PLUGSMITH_BASE_URL',
      'PLUGSMITH_MESSAGING_URL',
      'PLUGSMITH_ORG_ID',
      'PLUGSMITH_TOKEN',
    ]);
    expect((await fetch(`${environment.PLUGSMITH_BASE_URL}/_emulator/health`)).status).toBe(200);
    expect(await json.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    const both = await runCli(['emulator', 'exec', '--json', '--', 'true'], { cwd, env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--json prints the environment instead of running a command');
  });

  test('python3 -m unittest against a stdlib-only Python receiver: the challenge flow, with the project deployed by --deploy; a failing suite fails', async () => {
    const env = await freshMachine();
    const cwd = await tempDir('plugsmith-exec-python-');
    await cp(PYTHON_PLUGIN, cwd, { recursive: true });
    const port = String(await freePort());
    const run = await runCli(
      ['emulator', 'exec', '--deploy', '--', 'python3', '-m', 'unittest', '-v'],
      { cwd, env: { ...env, PORT: port } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/deployed Python receiver \(plg_\S+\) into an in-memory emulator/);
    expect(run.stderr).toMatch(/Ran 3 tests/);
    expect(run.stderr).toContain('test_the_deployed_plugin_verifies_its_webhook');
    expect(run.stderr).toMatch(/\nOK\n/);
    // A throwaway store: nothing recorded in the project.
    expect(existsSync(join(cwd, '.plugsmith'))).toBe(false);

    // Without --deploy the deployed-plugin test has no plugin: the suite fails, and so does exec.
    const failing = await runCli(['emulator', 'exec', '--', 'python3 -m unittest test_deployed'], {
      cwd,
      env: { ...env, PORT: port },
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("KeyError: 'PLUGSMITH_PLUGIN_ID'");
  });
});
