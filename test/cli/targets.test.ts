import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { emulator as startTestEmulator } from '../kit/index.js';

// One rule for where every command goes and as whom (docs/platform.md, "Talking to a platform"): a URL given by flag or
// variable that is a running local emulator's takes that emulator's credentials, for every command alike.

/** An environment with no PLUGSMITH_* target: only what a test adds decides. */
function bareEnv(configDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_API_KEY: '',
    PLUGSMITH_ORG_ID: '',
    PLUGSMITH_PROFILE: '',
    ...extra,
  };
}

describe('CLI targets: one resolution of base URL, token and org', () => {
  test('--base-url of the running emulator works for plugins list as it does for logs; PLUGSMITH_ORG_ID is read, --org wins', async () => {
    const config = await tempConfigDir();
    const emulator = spawnCli(
      ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory', '--json'],
      { env: bareEnv(config) },
    );
    const { url } = JSON.parse(await emulator.nextLine()) as { url: string };
    // Another folder's config: nothing there names this emulator, so only the URL can lead to it.
    const elsewhere = await tempConfigDir();
    const { cp } = await import('node:fs/promises');
    await cp(`${config}/emulators`, `${elsewhere}/emulators`, { recursive: true });

    const logs = await runCli(['logs', '--base-url', url, '--json'], { env: bareEnv(elsewhere) });
    expect(logs.code, logs.stderr).toBe(0);
    const plugins = await runCli(['plugins', 'list', '--base-url', url, '--json'], {
      env: bareEnv(elsewhere),
    });
    expect(plugins.code, plugins.stderr).toBe(0);
    expect(JSON.parse(plugins.stdout)).toEqual([]);
    const byVariable = await runCli(['repos', 'list', '--json'], {
      env: bareEnv(elsewhere, { PLUGSMITH_BASE_URL: url }),
    });
    expect(byVariable.code, byVariable.stderr).toBe(0);
    expect(JSON.parse(byVariable.stdout).map((r: { id: string }) => r.id)).toContain('repo_docs');

    const otherOrg = await runCli(['repos', 'list', '--base-url', url, '--json'], {
      env: bareEnv(elsewhere, { PLUGSMITH_ORG_ID: 'org_someone_else' }),
    });
    expect(otherOrg.code).not.toBe(0);
    expect(otherOrg.stderr).toContain('org_someone_else');
    const flagWins = await runCli(
      ['repos', 'list', '--base-url', url, '--org', 'org_dev', '--json'],
      {
        env: bareEnv(elsewhere, { PLUGSMITH_ORG_ID: 'org_someone_else' }),
      },
    );
    expect(flagWins.code, flagWins.stderr).toBe(0);
    await emulator.stop();
  });

  test('a `login --local` profile is local at its own URL only: a URL given by flag or variable is judged on its own', async () => {
    // Some other emulator (a test's own, say): answering, but no state file of this config dir names it.
    const other = await startTestEmulator();
    const config = await tempConfigDir();
    await writeFile(
      join(config, 'config.json'),
      JSON.stringify({
        current: 'local',
        profiles: { local: { baseUrl: 'http://127.0.0.1:9', token: other.token, local: true } },
      }),
    );
    for (const env of [
      bareEnv(config, { PLUGSMITH_TOKEN: other.token! }),
      bareEnv(config, { PLUGSMITH_TOKEN: other.token!, PLUGSMITH_BASE_URL: other.url }),
    ]) {
      const args = env.PLUGSMITH_BASE_URL
        ? ['whoami', '--json']
        : ['whoami', '--base-url', other.url, '--json'];
      const whoami = await runCli(args, { env });
      expect(whoami.code, whoami.stderr).toBe(0);
      expect(JSON.parse(whoami.stdout)).toMatchObject({ baseUrl: other.url, local: false });
    }
  });
});
