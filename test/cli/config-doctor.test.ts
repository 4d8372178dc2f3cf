import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test, type TestContext } from 'vitest';
import { API_KEY, ORG, OWNER_TOKEN, useCliEnv } from '../kit/cli-env.js';
import { deadUrl as refusedUrl } from '../kit/index.js';

const t = useCliEnv();
let deadUrl: string;
beforeAll(async () => {
  deadUrl = await refusedUrl();
});

/**
 * A config dir of its own, and an environment with no PLUGSMITH_* target (profiles decide).
 * Cleanup goes through the test's own context: these tests run concurrently.
 */
async function ownConfig(
  context: TestContext,
): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-cli-prof-'));
  context.onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return {
    dir,
    env: {
      PLUGSMITH_CONFIG_DIR: dir,
      PLUGSMITH_BASE_URL: '',
      PLUGSMITH_MESSAGING_URL: '',
      PLUGSMITH_TOKEN: '',
      PLUGSMITH_API_KEY: '',
    },
  };
}

describe.concurrent('profiles, precedence and doctor', { timeout: 120_000 }, () => {
  test('flag > environment > profile, for the URL, the token and the org; --profile and PLUGSMITH_PROFILE pick a profile', async (context) => {
    const { env } = await ownConfig(context);
    // The default profile points at a dead URL with a wrong token; "good" at the emulator.
    expect(
      (
        await t.cli(
          ['login', '--base-url', deadUrl, '--token', '-', '--org', 'org_elsewhere'],
          env,
          'pst_wrong\n',
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await t.cli(
          [
            'login',
            '--profile',
            'good',
            '--base-url',
            t.emu.url,
            '--messaging-url',
            t.emu.messagingUrl,
            '--token',
            '-',
            '--org',
            ORG,
          ],
          env,
          `${OWNER_TOKEN}\n`,
        )
      ).code,
    ).toBe(0);
    expect((await t.cli(['profiles', 'use', 'default'], env)).code).toBe(0);

    const [fromProfile, envUrl, envUrlAndToken, flagUrl, named, namedByEnv, unknown, flagOrg] =
      await Promise.all([
        t.cli(['repos', 'list'], env),
        t.cli(['repos', 'list', '--org', ORG], { ...env, PLUGSMITH_BASE_URL: t.emu.url }),
        t.cli(['repos', 'list', '--org', ORG], {
          ...env,
          PLUGSMITH_BASE_URL: t.emu.url,
          PLUGSMITH_TOKEN: OWNER_TOKEN,
        }),
        t.cli(['repos', 'list', '--org', ORG, '--base-url', t.emu.url, '--json'], {
          ...env,
          PLUGSMITH_BASE_URL: deadUrl,
          PLUGSMITH_TOKEN: OWNER_TOKEN,
        }),
        t.cli(['repos', 'list', '--profile', 'good', '--json'], env),
        t.cli(['repos', 'list', '--json'], { ...env, PLUGSMITH_PROFILE: 'good' }),
        t.cli(['repos', 'list'], { ...env, PLUGSMITH_PROFILE: 'nobody' }),
        t.cli(['repos', 'list', '--profile', 'good', '--org', 'org_unknown'], env),
      ]);
    expect(fromProfile.code, fromProfile.stderr).toBe(7); // the profile's dead URL
    expect(envUrl.code).toBe(3); // the environment's URL, the profile's wrong token
    expect(envUrlAndToken.code, envUrlAndToken.stderr).toBe(0);
    expect(flagUrl.code, flagUrl.stderr).toBe(0);
    expect(JSON.parse(flagUrl.stdout).map((r: { id: string }) => r.id)).toContain('repo_docs');
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout).map((r: { id: string }) => r.id)).toContain('repo_docs'); // the profile's org
    expect(namedByEnv.code).toBe(0);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no profile named "nobody"');
    expect(flagOrg.code).toBe(4);
  });

  test('doctor: all good against the emulator (state file included), human and --json', async (context) => {
    const { dir, env } = await ownConfig(context);
    await t.cli(
      [
        'login',
        '--base-url',
        t.emu.url,
        '--messaging-url',
        t.emu.messagingUrl,
        '--token',
        '-',
        '--org',
        ORG,
      ],
      env,
      `${OWNER_TOKEN}\n`,
    );
    await mkdir(join(dir, 'emulators'));
    await writeFile(
      join(dir, 'emulators', 'memory-1.json'),
      JSON.stringify({
        url: t.emu.url,
        messagingUrl: t.emu.messagingUrl,
        token: OWNER_TOKEN,
        apiKey: API_KEY,
        orgId: ORG,
        dataDir: null,
        pid: process.pid,
        startedAt: new Date().toISOString(),
      }),
    );
    const [human, json, slashed] = await Promise.all([
      t.cli(['doctor'], { ...env, PLUGSMITH_API_KEY: API_KEY }),
      t.cli(['doctor', '--json'], { ...env, PLUGSMITH_API_KEY: API_KEY }),
      // The same emulator, its URL written with a trailing slash.
      t.cli(['doctor'], {
        ...env,
        PLUGSMITH_API_KEY: API_KEY,
        PLUGSMITH_BASE_URL: `${t.emu.url}/`,
      }),
    ]);
    expect(human.code, human.stdout + human.stderr).toBe(0);
    for (const name of [
      'node',
      'config',
      'profile',
      'management API',
      'token',
      'messaging API',
      'API key',
      'emulator',
    ]) {
      expect(human.stdout).toMatch(new RegExp(`^✔ ${name}\\s`, 'm'));
    }
    expect(human.stdout).toContain('owner-only');
    expect(human.stdout).toContain(
      `running at ${t.emu.url} (pid ${process.pid}); the profile uses it`,
    );
    expect(slashed.stdout).toContain('the profile uses it');
    const report = JSON.parse(json.stdout);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c: { name: string }) => c.name)).toEqual([
      'node',
      'config',
      'profile',
      'management API',
      'token',
      'messaging API',
      'API key',
      'emulator',
    ]);
  });

  test('doctor with no config file beside a running emulator: all good, no login asked for (as README and the banner say)', async (context) => {
    const { dir, env } = await ownConfig(context);
    await mkdir(join(dir, 'emulators'));
    await writeFile(
      join(dir, 'emulators', 'memory-1.json'),
      JSON.stringify({
        url: t.emu.url,
        messagingUrl: t.emu.messagingUrl,
        token: OWNER_TOKEN,
        apiKey: API_KEY,
        orgId: ORG,
        dataDir: null,
        pid: process.pid,
        startedAt: new Date().toISOString(),
      }),
    );
    const doctor = await t.cli(['doctor'], env);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(
      /^✔ config\s+no config file at .*: none is needed for the local emulator/m,
    );
    expect(doctor.stdout).not.toMatch(/run `plugsmith login`/);
    // Where the settings came from: the emulator's state file, not flags or variables (none was set).
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^✔ profile\\s+the running emulator at ${t.emu.url.replaceAll('.', '\\.')} \\(its state file .*memory-1\\.json\\); org ${ORG}`,
        'm',
      ),
    );
  });

  test('doctor fails with the first problem’s code: refused token 3, dead URL 7, config open to others 3, emulator gone 7', async (context) => {
    const open = await ownConfig(context);
    await writeFile(
      join(open.dir, 'config.json'),
      JSON.stringify({
        current: 'default',
        profiles: { default: { baseUrl: t.emu.url, token: OWNER_TOKEN } },
      }),
    );
    await chmod(join(open.dir, 'config.json'), 0o644);
    const stale = await ownConfig(context);
    await mkdir(join(stale.dir, 'emulators'));
    await writeFile(
      join(stale.dir, 'emulators', 'memory-1.json'),
      JSON.stringify({
        url: deadUrl,
        messagingUrl: deadUrl,
        token: null,
        apiKey: null,
        orgId: null,
        dataDir: null,
        pid: process.pid,
        startedAt: '',
      }),
    );

    const [badToken, dead, perms, gone] = await Promise.all([
      t.cli(['doctor'], { PLUGSMITH_TOKEN: 'pst_wrong' }),
      t.cli(['doctor', '--json'], {
        PLUGSMITH_BASE_URL: deadUrl,
        PLUGSMITH_MESSAGING_URL: deadUrl,
      }),
      t.cli(['doctor'], open.env),
      t.cli(['doctor'], {
        ...stale.env,
        PLUGSMITH_BASE_URL: t.emu.url,
        PLUGSMITH_TOKEN: OWNER_TOKEN,
      }),
    ]);
    expect(badToken.code).toBe(3);
    expect(badToken.stdout).toMatch(/^✖ token\s+refused/m);
    expect(badToken.stderr).toContain('1 problem found: token');
    expect(dead.code).toBe(7);
    const report = JSON.parse(dead.stdout);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c: { name: string }) => c.name === 'management API')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('cannot reach'),
    });
    expect(perms.code).toBe(3);
    expect(perms.stdout).toContain('chmod 600');
    expect(gone.code).toBe(7);
    expect(gone.stdout).toMatch(/^✖ emulator\s+.*does not answer/m);
    expect(gone.stdout).toMatch(/^! messaging API/m);
  });
});
