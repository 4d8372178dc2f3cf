import { readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { runCli, spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { stateFileOf } from '../kit/emulator-state.js';
import { runCliInProcess, tempDir } from '../kit/index.js';

// `emulator start` runs as a process where it starts (its output, signals, exit on stop); the runs
// that are refused before anything listens, and the commands that find it, run in this process.

interface State {
  url: string;
  messagingUrl: string;
  token: string;
  apiKey: string;
  orgId: string;
  dataDir: string | null;
}

async function start(args: string[], configDir: string) {
  const proc = spawnCli(
    ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--json', ...args],
    {
      env: { PLUGSMITH_CONFIG_DIR: configDir },
    },
  );
  const state = JSON.parse(await proc.nextLine()) as State;
  return { proc, state };
}

describe('plugsmith emulator start', () => {
  test('prints the URLs, token and API key, serves health, writes the state file, and stops cleanly on SIGTERM', async () => {
    const config = await tempConfigDir();
    const data = await tempDir('plugsmith-start-');
    const { proc, state } = await start(['--data-dir', data], config);
    expect(state.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(state.messagingUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(state.token).toMatch(/^pst_/);
    expect(state.apiKey).toMatch(/^psk_/);
    expect(state.orgId).toBe('org_dev');

    const health = await request(`${state.url}/_emulator/health`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toMatchObject({
      ok: true,
      data: { status: 'ok', persistent: true },
    });

    const stateFile = stateFileOf(config, data);
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).toMatchObject({
      url: state.url,
      token: state.token,
    });
    expect((await stat(stateFile)).mode & 0o077).toBe(0);

    // The default workspace is usable with the printed token.
    const me = await request(`${state.url}/api/orgs/org_dev/repositories`, {
      headers: { authorization: state.token },
    });
    expect(me.statusCode).toBe(200);

    const { code } = await proc.stop('SIGTERM');
    expect(code).toBe(0);
    expect(existsSync(stateFile)).toBe(false);
  });

  test('without any profile or environment, commands use the running local emulator', async () => {
    const config = await tempConfigDir();
    const { proc, state } = await start(['--in-memory'], config);
    const env = {
      PLUGSMITH_CONFIG_DIR: config,
      PLUGSMITH_BASE_URL: '',
      PLUGSMITH_TOKEN: '',
      PLUGSMITH_PROFILE: '',
    };
    const who = await runCliInProcess(['whoami', '--json'], { env });
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({
      baseUrl: state.url,
      tokenValid: true,
      local: true,
      orgId: 'org_dev',
    });
    // A refused token from PLUGSMITH_TOKEN (a CI job's) is named as such: login would not change it.
    const refused = await runCliInProcess(['whoami'], {
      env: { ...env, PLUGSMITH_TOKEN: 'pst_not_a_token_of_this_emulator' },
    });
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toContain(`the token in PLUGSMITH_TOKEN is not valid at ${state.url}`);
    await proc.stop();
    // Once it has stopped, the same command says how to get a target.
    const after = await runCliInProcess(['whoami'], { env });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain('plugsmith login');
  });

  test('SIGINT flushes and exits 0; a restart on the same data dir keeps records and prints the same token', async () => {
    const config = await tempConfigDir();
    const data = await tempDir('plugsmith-start-');
    const first = await start(['--data-dir', data], config);
    const created = await request(`${first.state.url}/api/plugins`, {
      method: 'POST',
      headers: { authorization: first.state.token, 'content-type': 'application/json' },
      body: JSON.stringify({ orgId: 'org_dev', name: 'kept', type: 'APP' }),
    });
    expect(created.statusCode).toBe(201);
    const pluginId = ((await created.body.json()) as { data: { id: string } }).data.id;
    expect((await first.proc.stop('SIGINT')).code).toBe(0);

    const second = await start(['--data-dir', data], config);
    expect(second.state.token).toBe(first.state.token);
    expect(second.state.apiKey).toBe(first.state.apiKey);
    const got = await request(`${second.state.url}/api/plugins/${pluginId}`, {
      headers: { authorization: second.state.token },
    });
    expect(got.statusCode).toBe(200);
    await second.proc.stop();
  });

  test('a second emulator on the same data dir is refused with a clear message', async () => {
    const config = await tempConfigDir();
    const data = await tempDir('plugsmith-start-');
    const first = await start(['--data-dir', data], config);
    // Another config dir: the same one is refused earlier, for the running emulator (test/cli/preflight.test.ts).
    const second = await runCli(
      ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--data-dir', data],
      {
        env: { PLUGSMITH_CONFIG_DIR: await tempConfigDir() },
      },
    );
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('in use by another emulator');
    expect(second.stderr).toContain(String(first.proc.child.pid));
    await first.proc.stop();
  });

  test('loads exactly the seed format, and --in-memory writes nothing', async () => {
    const config = await tempConfigDir();
    const dir = await tempDir('plugsmith-start-');
    const seedPath = join(dir, 'seed.json');
    await writeFile(
      seedPath,
      JSON.stringify({
        users: [{ id: 'u_olive', name: 'Olive' }],
        orgs: [{ id: 'org_acme', name: 'Acme', members: [{ userId: 'u_olive', role: 'OWNER' }] }],
        tokens: [{ userId: 'u_olive', token: 'tok_olive', orgId: null, name: 'dev' }],
        agents: [{ id: 'agent_nova', orgId: 'org_acme', name: 'Nova agent' }],
        characters: [
          {
            id: 'char_nova',
            orgId: 'org_acme',
            agentId: 'agent_nova',
            name: 'Nova',
            script: [{ match: 'hello', reply: 'Hi there!' }],
            fallbackReply: 'Tell me more.',
          },
        ],
        apiKeys: [{ key: 'key_acme', orgId: 'org_acme' }],
      }),
    );
    const { proc, state } = await start(['--in-memory', '--seed', seedPath], config);
    expect(state).toMatchObject({
      token: 'tok_olive',
      apiKey: 'key_acme',
      orgId: 'org_acme',
      dataDir: null,
    });
    const res = await request(`${state.url}/api/orgs/org_acme/repositories`, {
      headers: { authorization: 'tok_olive' },
    });
    expect(res.statusCode).toBe(200);
    const other = await request(`${state.url}/api/orgs/org_dev/repositories`, {
      headers: { authorization: 'tok_olive' },
    });
    expect(other.statusCode).toBe(404);
    await proc.stop();
  });

  test('without --json: a banner with the URLs, token, key and store; --host is where it listens; --in-memory writes nothing in the folder', async () => {
    const config = await tempConfigDir();
    const cwd = await tempDir('plugsmith-start-');
    const proc = spawnCli(
      [
        'emulator',
        'start',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--host',
        '127.0.0.2',
        '--in-memory',
      ],
      { cwd, env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    const banner: string[] = [];
    while (!banner.some((line) => line.endsWith('Stop with Ctrl+C.')))
      banner.push(await proc.nextLine());
    const text = banner.join('\n');
    expect(text).toContain('plugsmith emulator ready');
    // One voice with README and doctor: no login against the local emulator.
    expect(text).toContain('No login needed');
    expect(text).not.toContain('login --local');
    // The base URL other commands take, not a route under it.
    const management = /management API\s+(http:\/\/127\.0\.0\.2:\d+)\s+\(the base URL/.exec(
      text,
    )![1];
    expect(text).toMatch(/messaging API\s+http:\/\/127\.0\.0\.2:\d+/);
    const token = /token\s+(pst_\S+)/.exec(text)![1];
    expect(text).toMatch(/API key\s+psk_\S+/);
    expect(text).toMatch(/store\s+in memory/);
    const created = await request(`${management}/api/orgs/org_dev/repositories`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'only in memory' }),
    });
    expect(created.statusCode).toBe(201);
    // The banner's URL is what commands take; one given with /api gets its token nowhere, and is told which to give.
    const bare = { PLUGSMITH_CONFIG_DIR: config, PLUGSMITH_TOKEN: '', PLUGSMITH_BASE_URL: '' };
    const listed = await runCliInProcess(['repos', 'list', '--json', '--base-url', management], {
      cwd,
      env: bare,
    });
    expect(listed.code, listed.stderr).toBe(0);
    const withApi = await runCliInProcess(['repos', 'list', '--base-url', `${management}/api`], {
      cwd,
      env: bare,
    });
    expect(withApi.code).toBe(3);
    expect(withApi.stderr).toContain(`(the base URL is without /api: ${management})`);
    expect((await proc.stop('SIGINT')).code).toBe(0);
    expect(await readdir(cwd)).toEqual([]);
  });

  test('--in-memory with --data-dir is a usage error (2) naming both, before anything starts', async () => {
    const config = await tempConfigDir();
    const cwd = await tempDir('plugsmith-start-');
    const result = await runCliInProcess(
      [
        'emulator',
        'start',
        '--in-memory',
        '--data-dir',
        'store',
        '--port',
        '0',
        '--messaging-port',
        '0',
      ],
      { cwd, env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: option '--in-memory' cannot be used with option '--data-dir <dir>' (run with --help for usage)\n",
    );
    expect(await readdir(cwd)).toEqual([]);
  });

  const badSeeds: Array<[string, unknown, string]> = [
    [
      'a role outside the enum',
      {
        users: [{ id: 'u', name: 'U' }],
        orgs: [{ id: 'o', name: 'O', members: [{ userId: 'u', role: 'ADMIN' }] }],
        tokens: [],
      },
      'orgs[0].members[0].role',
    ],
    ['a missing field', { users: [{ id: 'u' }], orgs: [], tokens: [] }, 'users[0].name'],
    ['an unknown field', { users: [], orgs: [], tokens: [], plugins: [] }, 'plugins'],
    [
      'a member who is not a user',
      {
        users: [],
        orgs: [{ id: 'o', name: 'O', members: [{ userId: 'ghost', role: 'OWNER' }] }],
        tokens: [],
      },
      'orgs[0].members[0].userId',
    ],
    [
      'a character of an unknown agent',
      {
        users: [],
        orgs: [{ id: 'o', name: 'O', members: [] }],
        tokens: [],
        characters: [{ id: 'c', orgId: 'o', agentId: 'nope', name: 'C' }],
      },
      'characters[0].agentId',
    ],
    [
      'a user listed twice in one org',
      {
        users: [{ id: 'u', name: 'U' }],
        orgs: [
          {
            id: 'o',
            name: 'O',
            members: [
              { userId: 'u', role: 'OWNER' },
              { userId: 'u', role: 'VIEWER' },
            ],
          },
        ],
        tokens: [],
      },
      'orgs[0].members[1].userId',
    ],
    [
      'the same token twice',
      {
        users: [{ id: 'u', name: 'U' }],
        orgs: [],
        tokens: [
          { userId: 'u', token: 'tok_same_1' },
          { userId: 'u', token: 'tok_same_1' },
        ],
      },
      'tokens[1].token',
    ],
    [
      'a token with a space',
      {
        users: [{ id: 'u', name: 'U' }],
        orgs: [],
        tokens: [{ userId: 'u', token: 'tok with space' }],
      },
      'tokens[0].token',
    ],
    [
      'an invalid script regex',
      {
        users: [],
        orgs: [{ id: 'o', name: 'O', members: [] }],
        tokens: [],
        characters: [{ id: 'c', orgId: 'o', name: 'C', script: [{ match: '(', reply: 'x' }] }],
      },
      'characters[0].script[0].match',
    ],
  ];

  test.each(badSeeds)(
    'an invalid seed (%s) is refused naming the field, with a non-zero exit',
    async (_name, seed, path) => {
      const config = await tempConfigDir();
      const dir = await tempDir('plugsmith-start-');
      const seedPath = join(dir, 'seed.json');
      await writeFile(seedPath, JSON.stringify(seed));
      const result = await runCliInProcess(
        [
          'emulator',
          'start',
          '--port',
          '0',
          '--messaging-port',
          '0',
          '--in-memory',
          '--seed',
          seedPath,
        ],
        {
          env: { PLUGSMITH_CONFIG_DIR: config },
        },
      );
      expect(result.code).toBe(5);
      expect(result.stderr).toContain('invalid seed');
      expect(result.stderr).toContain(path);
      expect(result.stdout).toBe('');
    },
  );

  test('a seed that is not JSON, or missing, is refused', async () => {
    const config = await tempConfigDir();
    const dir = await tempDir('plugsmith-start-');
    const seedPath = join(dir, 'seed.json');
    await writeFile(seedPath, '{ nope');
    const broken = await runCli(
      [
        'emulator',
        'start',
        '--in-memory',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--seed',
        seedPath,
      ],
      { env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    expect(broken.code).toBe(5);
    expect(broken.stderr).toContain('not valid JSON');
    const missing = await runCli(
      [
        'emulator',
        'start',
        '--in-memory',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--seed',
        join(dir, 'absent.json'),
      ],
      { env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('ENOENT');
  });

  test('a bad option value is a usage error (exit 2) naming the flag', async () => {
    const result = await runCli(['emulator', 'start', '--port', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--port');
  });
});
