import { readFile, stat } from 'node:fs/promises';
import { request } from 'undici';
import { expect, test } from 'vitest';
import { spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { runCliInProcess } from '../kit/index.js';
import { memoryStateFile } from '../kit/emulator-state.js';

// `plugsmith emulator start` makes a new admin credential per start, prints it with --json and
// keeps it in its owner-only state file, where the other commands find it on their own.

test('the admin credential: printed, kept in the state file, used by the CLI; the admin API refuses calls without it', async () => {
  const config = await tempConfigDir();
  const proc = spawnCli(
    ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory', '--json'],
    { env: { PLUGSMITH_CONFIG_DIR: config } },
  );
  const state = JSON.parse(await proc.nextLine()) as { url: string; adminToken: string };
  expect(state.adminToken).toMatch(/^psa_[A-Za-z0-9_-]{20,}$/);

  const stateFile = memoryStateFile(config, proc.child.pid!);
  expect(JSON.parse(await readFile(stateFile, 'utf8')).adminToken).toBe(state.adminToken);
  expect((await stat(stateFile)).mode & 0o077).toBe(0);

  // curl-like callers: the documented header opens it, nothing else does.
  const bare = await request(`${state.url}/_emulator/export`);
  expect(bare.statusCode).toBe(401);
  expect(await bare.body.text()).toContain('x-plugsmith-admin');
  const withHeader = await request(`${state.url}/_emulator/export`, {
    headers: { 'x-plugsmith-admin': state.adminToken },
  });
  expect(withHeader.statusCode).toBe(200);
  await withHeader.body.dump();

  // Commands find the credential in the state file (no environment), or take PLUGSMITH_ADMIN_TOKEN
  // (run in this process: the emulator is the process here).
  const env = {
    PLUGSMITH_CONFIG_DIR: config,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_PROFILE: '',
    PLUGSMITH_ADMIN_TOKEN: '',
  };
  const logs = await runCliInProcess(['logs', '--json'], { env });
  expect(logs.code, logs.stderr).toBe(0);
  const reset = await runCliInProcess(['emulator', 'reset', '--yes'], { env });
  expect(reset.code, reset.stderr).toBe(0);
  const wrong = await runCliInProcess(['emulator', 'reset', '--yes'], {
    env: { ...env, PLUGSMITH_ADMIN_TOKEN: 'psa_not_this_one' },
  });
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toContain('x-plugsmith-admin');

  const { code } = await proc.stop('SIGTERM');
  expect(code).toBe(0);
});
