import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { uploadRepositoryFile } from '../../src/client/repository-file.js';
import { createWebhookHandler } from '../../src/shared/webhooks/index.js';
import { runCli } from '../kit/cli-process.js';
import { emulator, own, tempDir, server } from '../kit/index.js';
import { standIn, type StandIn } from '../kit/stand-in.js';

// `plugsmith scenario run` against a remote platform: the stand-in (an emulator behind a proxy that
// serves no /_emulator and records every request it receives), a plugin on a real port that
// answers each message with what it was told (never one saying "quiet"), and the CLI spawned with
// the stand-in's URLs and credentials, as a user with a real account runs it.

let platform: StandIn;
let pluginId: string;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  platform = await standIn();
  const client = createClient({ baseUrl: platform.url, token: platform.token });
  own(() => client.close());
  const tokens = new Map<string, string>();
  let secret = '';
  const webhook = await server((req, res) =>
    createWebhookHandler({
      secret,
      on: {
        PLUGIN_INSTALLED: (event) => {
          tokens.set(event.data.instance.id, event.data.accessToken);
        },
        AGENT_MESSAGE_RECEIVED: async (event) => {
          const { agentId, conversationId, message } = event.data;
          if (message.content.includes('quiet')) return;
          // "write NAME": the plugin writes the file NAME to the repository first, with the user's token it holds.
          const write = /^write (\S+)$/.exec(message.content);
          if (write)
            await uploadRepositoryFile(client, {
              repositoryId: 'repo_real',
              orgId: platform.orgId,
              fileName: write[1],
              contentType: 'text/markdown',
              bytes: Buffer.from('notes'),
            });
          await fetch(
            `${platform.url}/api/agents/${agentId}/conversations/${conversationId}/messages`,
            {
              method: 'POST',
              headers: {
                authorization: `Bearer ${tokens.get(event.pluginInstanceId)}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify({ content: `You said: ${message.content}`, isStreaming: false }),
            },
          );
        },
      },
    })(req, res),
  );
  const created = await client.plugins.create({
    orgId: platform.orgId,
    name: 'echo',
    description: 'answers with what it was told',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    webhookUrl: `${webhook.url}/webhook`,
  } as never);
  secret = String(created.webhookSecret);
  expect((await client.plugins.verifyWebhook(created.id)).verified).toBe(true);
  pluginId = created.id;
  dir = await tempDir('plugsmith-remote-');
  env = {
    PLUGSMITH_CONFIG_DIR: join(dir, 'config'),
    PLUGSMITH_BASE_URL: platform.url,
    PLUGSMITH_MESSAGING_URL: platform.messagingUrl,
    PLUGSMITH_TOKEN: platform.token,
    PLUGSMITH_API_KEY: platform.apiKey,
    PLUGSMITH_ADMIN_TOKEN: '',
    PLUGSMITH_EMULATOR: '',
    PLUGSMITH_PROFILE: '',
  };
}, 60_000);

async function scenarioFile(name: string, scenario: Record<string, unknown>): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify(scenario, null, 2));
  return path;
}

const cli = (args: string[]) => runCli(args, { cwd: dir, env });

const CHAT = {
  name: 'a chat on the real platform',
  steps: [
    { id: 'inst', install: { on: 'agent', id: 'agent_real' } },
    { id: 'conv', conversation: { character: 'char_real' } },
    {
      message: { conversation: '${conv.id}', text: 'hello' },
      expect: [
        { reply: { text: 'You said: hello' } },
        { replies: { count: 1 } },
        { delivery: { type: 'AGENT_MESSAGE_RECEIVED', status: '2xx', retried: false } },
      ],
    },
    {
      message: { conversation: '${conv.id}', text: 'quiet please' },
      expect: [{ none: { reply: true, withinMs: 300 } }],
    },
    { uninstall: { instance: '${inst.id}' } },
  ],
};

describe('plugsmith scenario run against a remote platform (the stand-in)', () => {
  test('a conversation, message and reply scenario passes through the public APIs: nothing sent to /_emulator, the delivery expectation not checkable', async () => {
    const file = await scenarioFile('chat', CHAT);
    const from = platform.requests.length;
    const run = await cli(['scenario', 'run', file, '--plugin', pluginId]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`running on the remote platform at ${platform.url}`);
    expect(run.stdout).toMatch(/✓ message "hello"/);
    expect(run.stdout).toContain(
      '? not checkable on this target: delivery {"type":"AGENT_MESSAGE_RECEIVED","status":"2xx","retried":false}',
    );
    expect(run.stdout).toMatch(/✓ 1 passed; 1 expectation not checkable on this target \(/);
    const sent = platform.requests.slice(from);
    expect(platform.adminRequests).toEqual([]);
    expect(sent.filter((r) => r.includes('/_emulator'))).toEqual([]);
    // Every step went through the platform's public APIs.
    expect(sent).toContain(`GET /api/plugins/${pluginId}`);
    expect(sent).toContain('POST /api/agents/agent_real/plugins');
    expect(sent).toContain('POST /conversations');
    expect(sent.some((r) => /^POST \/conversations\/[^/]+\/messages$/.test(r))).toBe(true);
    expect(sent.some((r) => /^DELETE \/api\/agents\/agent_real\/plugins\/\S+$/.test(r))).toBe(true);
  });

  test('a non-local profile is a remote platform too (its URLs and credentials, nothing sent to /_emulator)', async () => {
    const file = await scenarioFile('chat-profile', CHAT);
    const config = join(dir, 'profile-config');
    await mkdir(config, { recursive: true, mode: 0o700 });
    await writeFile(
      join(config, 'config.json'),
      JSON.stringify({
        current: 'prod',
        profiles: {
          prod: {
            baseUrl: platform.url,
            messagingUrl: platform.messagingUrl,
            token: platform.token,
            apiKey: platform.apiKey,
          },
        },
      }),
      { mode: 0o600 },
    );
    const run = await runCli(['scenario', 'run', file, '--plugin', pluginId], {
      cwd: dir,
      env: {
        ...env,
        PLUGSMITH_CONFIG_DIR: config,
        PLUGSMITH_BASE_URL: '',
        PLUGSMITH_MESSAGING_URL: '',
        PLUGSMITH_TOKEN: '',
        PLUGSMITH_API_KEY: '',
      },
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`running on the remote platform at ${platform.url}`);
    expect(platform.adminRequests).toEqual([]);
  });

  test('--json names the target and lists the unchecked expectation apart; --junit names the target', async () => {
    const file = await scenarioFile('chat-json', CHAT);
    const junit = join(dir, 'report.xml');
    const run = await cli([
      'scenario',
      'run',
      file,
      '--plugin',
      pluginId,
      '--json',
      '--junit',
      junit,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.target).toEqual({ kind: 'remote', url: platform.url });
    expect(report.scenarios[0].target).toEqual({ kind: 'remote', url: platform.url });
    expect(report.scenarios[0].steps[1].result).toEqual({
      id: expect.any(String),
      characterId: 'char_real',
      agentId: null,
    });
    const step = report.scenarios[0].steps[2];
    expect(step).toMatchObject({ ok: true, failures: [], deliveries: [] });
    expect(step.unchecked).toEqual([
      {
        expectation: expect.stringMatching(/^delivery /),
        reason: expect.stringContaining('a remote platform shows no delivery log'),
      },
    ]);
    const xml = await readFile(junit, 'utf8');
    expect(xml).toContain('<property name="plugsmith.target" value="remote"/>');
    expect(xml).toContain(`<property name="plugsmith.target.url" value="${platform.url}"/>`);
    expect(xml).toContain('not checkable on this target');
    expect(platform.adminRequests).toEqual([]);
  });

  test('a wrong reply fails on the remote too: what the public APIs show is checked, never passed', async () => {
    const file = await scenarioFile('wrong', {
      name: 'a wrong reply',
      steps: [
        { id: 'inst', install: { on: 'agent', id: 'agent_real' } },
        { id: 'conv', conversation: { character: 'char_real' } },
        {
          message: { conversation: '${conv.id}', text: 'hi' },
          expect: [{ reply: { text: 'something else', withinMs: 500 } }],
        },
        { uninstall: { instance: '${inst.id}' } },
      ],
    });
    const run = await cli(['scenario', 'run', file, '--plugin', pluginId]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('expected:    a reply "something else"');
    expect(run.stdout).toContain('observed:    "You said: hi"');
    expect(platform.adminRequests).toEqual([]);
  });

  test('a scenario with a trigger step (and other steps that need the emulator) is refused before any request, each named with its reason', async () => {
    const file = await scenarioFile('needs-emulator', {
      name: 'needs the emulator',
      steps: [
        { id: 'conv', conversation: { agent: 'agent_real' } },
        { trigger: { event: 'AGENT_MESSAGE_RECEIVED', payload: { message: { content: 'x' } } } },
        { trigger: { event: 'PLUGIN_INSTALLED' } },
        { faults: { profile: 'duplicate=1' } },
        { uninstall: { instance: 'inst_somebody' } },
      ],
    });
    const from = platform.requests.length;
    const run = await cli(['scenario', 'run', file, '--plugin', pluginId]);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(platform.requests.slice(from)).toEqual([]);
    expect(run.stderr).toContain('nothing was sent');
    expect(run.stderr).toContain(
      'steps[0].conversation: finding the character of an agent needs the emulator',
    );
    expect(run.stderr).toContain(
      'steps[1].trigger.payload: a trigger with a payload needs the emulator',
    );
    expect(run.stderr).toContain('steps[2].trigger: a trigger needs the emulator');
    expect(run.stderr).toContain('steps[3].faults: fault injection is the emulator');
    expect(run.stderr).toContain(
      'steps[4].uninstall.instance: on a remote platform only an instance this scenario installed',
    );
    expect(run.stderr).toMatch(/fix: /);

    // --faults is refused the same way, and --json gives the refusals.
    const faulty = await cli([
      'scenario',
      'run',
      await scenarioFile('plain', CHAT),
      '--plugin',
      pluginId,
      '--faults',
      'duplicate=1',
      '--json',
    ]);
    expect(faulty.code, faulty.stderr).toBe(2);
    // A scenario that talks through the messaging API without an API key: refused the same way.
    const keyless = await runCli(
      ['scenario', 'run', await scenarioFile('keyless', CHAT), '--plugin', pluginId],
      {
        cwd: dir,
        env: { ...env, PLUGSMITH_API_KEY: '' },
      },
    );
    expect(keyless.code, keyless.stderr).toBe(2);
    expect(keyless.stderr).toContain('an API key (PLUGSMITH_API_KEY');
    expect(JSON.parse(faulty.stdout)).toMatchObject({
      ok: false,
      target: 'remote',
      problems: [expect.stringContaining('--faults')],
    });
    expect(platform.requests.slice(from)).toEqual([]);
  });

  test("a file the plugin writes is checked through the public APIs (new since the step's snapshot); one the scenario's own addFile added is not the plugin's", async () => {
    const file = await scenarioFile('files', {
      name: 'the plugin writes a file',
      steps: [
        { id: 'inst', install: { on: 'agent', id: 'agent_real' } },
        { id: 'conv', conversation: { character: 'char_real' } },
        {
          message: { conversation: '${conv.id}', text: 'write notes-${run.id}.md' },
          expect: [
            { file: { written: 'notes-${run.id}.md', repository: 'repo_real' } },
            { reply: { pattern: '^You said: write notes-' } },
          ],
        },
        { uninstall: { instance: '${inst.id}' } },
      ],
    });
    const run = await cli(['scenario', 'run', file, '--plugin', pluginId]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(platform.adminRequests).toEqual([]);

    const own = await scenarioFile('own-file', {
      name: 'the scenario adds the file itself',
      steps: [
        {
          addFile: { repository: 'repo_real', name: 'own-${run.id}.md', content: 'x' },
          expect: [
            { file: { written: 'own-${run.id}.md', repository: 'repo_real', withinMs: 300 } },
          ],
        },
      ],
    });
    const failed = await cli(['scenario', 'run', own, '--plugin', pluginId]);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    expect(failed.stdout).toContain("by this scenario's addFile step");
    expect(platform.adminRequests).toEqual([]);
  });

  test("a request step's result is used by later steps: a repository made, a file added to it, listed, removed; a 404 expected; a conversation made on the messaging API", async () => {
    const file = await scenarioFile('requests', {
      name: 'requests on the real platform',
      steps: [
        {
          id: 'repo',
          request: {
            method: 'POST',
            path: '/api/orgs/org_real/repositories',
            body: { name: 'made by ${run.id}', description: 'a scenario made it' },
          },
        },
        { id: 'doc', addFile: { repository: '${repo.data.id}', name: 'guide.md', content: 'hi' } },
        {
          id: 'files',
          request: {
            method: 'GET',
            path: '/api/repositories/${repo.data.id}/files',
            query: { '@limit': 10 },
          },
        },
        {
          request: {
            method: 'DELETE',
            path: '/api/repositories/${repo.data.id}/files/${files.data.0.id}',
          },
        },
        { id: 'missing', request: { method: 'GET', path: '/api/plugins/plg_none', status: 404 } },
        { id: 'inst', install: { on: 'agent', id: 'agent_real' } },
        {
          id: 'c',
          request: {
            method: 'POST',
            path: '/conversations',
            api: 'messaging',
            body: { characterId: 'char_real' },
          },
        },
        {
          message: { conversation: '${c.data.id}', text: 'from a request' },
          expect: [{ reply: { text: 'You said: from a request' } }],
        },
        { uninstall: { instance: '${inst.id}' } },
      ],
    });
    const from = platform.requests.length;
    const run = await cli(['scenario', 'run', file, '--plugin', pluginId, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const steps = JSON.parse(run.stdout).scenarios[0].steps;
    const repositoryId = steps[0].result.data.id;
    expect(repositoryId).toEqual(expect.any(String));
    expect(steps[0]).toMatchObject({ label: 'request POST /api/orgs/org_real/repositories' });
    expect(steps[0].result.status).toBeGreaterThanOrEqual(200);
    expect(steps[1].result.repositoryId).toBe(repositoryId);
    expect(steps[2].result.data.map((f: { id: string }) => f.id)).toEqual([steps[1].result.id]);
    expect(steps[4].result).toMatchObject({ status: 404, error: 'NOT_FOUND', data: null });
    expect(steps[7]).toMatchObject({ ok: true, failures: [] });
    const sent = platform.requests.slice(from);
    expect(sent).toContain(`DELETE /api/repositories/${repositoryId}/files/${steps[1].result.id}`);
    expect(
      sent.filter((r) => r.startsWith(`GET /api/repositories/${repositoryId}/files?`)),
    ).toEqual([expect.stringMatching(/(@|%40)limit=10$/)]);
    expect(sent.filter((r) => r.includes('/_emulator'))).toEqual([]);
    expect(platform.adminRequests).toEqual([]);
  });

  test('a request step to /_emulator is refused on a remote before any request; one that answers another status fails its step', async () => {
    const refused = await scenarioFile('admin-request', {
      name: 'admin request',
      steps: [{ request: { method: 'GET', path: '/%5Femulator/faults' } }],
    });
    const from = platform.requests.length;
    const run = await cli(['scenario', 'run', refused, '--plugin', pluginId]);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(
      /steps\[0\]\.request\.path \(line \d+, column \d+\): \/_emulator is the emulator's admin API/,
    );
    expect(platform.requests.slice(from)).toEqual([]);

    const wrong = await scenarioFile('wrong-status', {
      name: 'wrong status',
      steps: [{ request: { method: 'GET', path: '/api/plugins/plg_none' } }, { wait: { ms: 1 } }],
    });
    const failed = await cli(['scenario', 'run', wrong, '--plugin', pluginId]);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(/✗ request GET \/api\/plugins\/plg_none/);
    expect(failed.stdout).toContain('answered 404 (NOT_FOUND');
    expect(failed.stdout).toMatch(/- wait 1 ms {2}skipped/);
  });
});

describe('the request step on the emulator', () => {
  test("works too, its results used by later steps; the admin API is refused, as written and once expanded: a cloned project's scenario must not read the store and hand it on", async () => {
    const emu = await emulator();
    const client = createClient({ baseUrl: emu.url, token: emu.token! });
    own(() => client.close());
    const plugin = await client.plugins.create({
      orgId: emu.orgId!,
      name: 'quiet',
      description: 'a plugin to run against',
      type: 'APP',
      events: [],
      scopes: [],
    } as never);
    const onEmulator = {
      cwd: dir,
      env: {
        ...env,
        PLUGSMITH_BASE_URL: emu.url,
        PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
        PLUGSMITH_TOKEN: emu.token!,
        PLUGSMITH_API_KEY: emu.apiKey!,
        PLUGSMITH_ADMIN_TOKEN: emu.adminToken,
      },
    };
    const file = await scenarioFile('on-emulator', {
      name: 'requests on the emulator',
      steps: [
        {
          id: 'repo',
          request: {
            method: 'POST',
            path: '/api/repositories',
            body: { name: '_emulator', description: 'd', orgId: emu.orgId },
          },
        },
        { id: 'again', request: { method: 'GET', path: '/api/repositories/${repo.data.id}' } },
        // Expanded, the path is /_emulator/export.
        { request: { method: 'GET', path: '/${repo.data.name}/export' } },
      ],
    });
    const run = await runCli(
      ['scenario', 'run', file, '--plugin', plugin.id, '--json'],
      onEmulator,
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.target).toEqual({ kind: 'emulator', url: emu.url });
    const steps = report.scenarios[0].steps;
    expect(steps[1].result.data.id).toBe(steps[0].result.data.id);
    expect(steps[1].result.data.name).toBe('_emulator');
    expect(steps[2].ok).toBe(false);
    expect(JSON.stringify(steps[2])).toContain(
      "/_emulator is the emulator's admin API, which a scenario's request does not reach",
    );

    // As written: refused before anything runs, whatever the encoding.
    for (const path of ['/_emulator/export', '/%5Femulator/reset', '//_emulator/tokens']) {
      const admin = await scenarioFile('admin-on-emulator', {
        name: 'admin request on the emulator',
        steps: [{ request: { method: 'GET', path } }],
      });
      const refused = await runCli(['scenario', 'run', admin, '--plugin', plugin.id], onEmulator);
      expect(refused.code, refused.stdout + refused.stderr).toBe(2);
      expect(refused.stdout + refused.stderr).toMatch(
        /steps\[0\]\.request\.path \(line \d+, column \d+\): (\/_emulator is the emulator's admin API|a request names a path of the platform, not a URL)/,
      );
    }
  });
});
