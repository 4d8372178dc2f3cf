import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { CLI, runCli, spawnCli } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { tempDir } from '../kit/index.js';
import { pythonProject, typescriptProject } from '../kit/project.js';

// Every template ships scenarios that pass: `plugsmith scenario run --start` (the CI command) in a
// project of each type and language, `scenario run` against `plugsmith dev` for Python, and the
// projects' own tests that run them (Python's through `emulator exec`, TypeScript's with vitest).

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = ['EVENT_HANDLER', 'DATA_PROVIDER', 'APP'] as const;

async function environment() {
  const work = await tempDir('plugsmith-scenario-templates-');
  return {
    work,
    env: {
      PLUGSMITH_CONFIG_DIR: join(work, 'config'),
      PLUGSMITH_BASE_URL: '',
      PLUGSMITH_TOKEN: '',
      PLUGSMITH_MESSAGING_URL: '',
      PLUGSMITH_API_KEY: '',
    },
  };
}

/** Runs a program to its end in `cwd`; its exit code and output. */
async function run(command: string, args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, output };
}

describe.each(TYPES)('the Python %s template', (type) => {
  test('its scenarios pass with `plugsmith scenario run --start`, and through its own tests', async () => {
    const { work, env } = await environment();
    const dir = join(work, 'plugin');
    await pythonProject(dir, type, env);
    const started = await runCli(['scenario', 'run', '--start'], { cwd: dir, env });
    expect(started.code, started.stdout + started.stderr).toBe(0);
    expect(started.stdout).toMatch(/✓ 2 passed/);
    // tests/test_scenarios.py plays them with `plugsmith scenario run` against its own plugin.
    const own = await runCli(
      ['emulator', 'exec', '--deploy', '--', 'python3', '-m', 'unittest', 'tests.test_scenarios'],
      { cwd: dir, env: { ...env, PLUGSMITH_CLI: `${process.execPath} ${CLI}` } },
    );
    expect(own.code, own.stdout + own.stderr).toBe(0);
    // One test per scenario file (each template ships two).
    expect(own.stderr).toContain('Ran 2 tests');
  });
});

test('the Python EVENT_HANDLER template: its scenarios pass against `plugsmith dev`', async () => {
  const { work, env } = await environment();
  const dir = join(work, 'plugin');
  await pythonProject(dir, 'EVENT_HANDLER', env);
  const port = await freePort();
  const dev = spawnCli(
    ['dev', '--emulator-port', '0', '--messaging-port', '0', '--plugin-port', String(port)],
    { cwd: dir, env },
  );
  onTestFinished(async () => {
    await dev.stop('SIGTERM');
  });
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  const result = await runCli(['scenario', 'run'], { cwd: dir, env });
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(result.stdout).toMatch(/✓ 2 passed/);
  await dev.stop('SIGTERM');
});

describe.each(['DATA_PROVIDER', 'APP'] as const)('the TypeScript %s template', (type) => {
  test('its scenarios pass with `plugsmith scenario run --start`', async () => {
    const { work, env } = await environment();
    const dir = join(work, 'plugin');
    await typescriptProject(dir, type, env);
    const started = await runCli(['scenario', 'run', '--start'], { cwd: dir, env });
    expect(started.code, started.stdout + started.stderr).toBe(0);
    expect(started.stdout).toMatch(/✓ 2 passed/);
  });
});

test("the TypeScript EVENT_HANDLER template's own test/scenarios.test.ts runs its scenarios with runScenario", async () => {
  const { work, env } = await environment();
  const dir = join(work, 'plugin');
  await typescriptProject(dir, 'EVENT_HANDLER', env);
  await symlink(join(ROOT, 'node_modules/vitest'), join(dir, 'node_modules/vitest'), 'dir');
  const tests = await run(
    process.execPath,
    [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/scenarios.test.ts'],
    dir,
    env,
  );
  expect(tests.code, tests.output).toBe(0);
  expect(tests.output).toMatch(/2 passed/);
});
