import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { createWebhookHandler } from '../../src/shared/webhooks/index.js';
import { runCli } from '../helpers/cli-process.js';
import { own, tempDir } from '../kit/index.js';
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
  const server = createServer((req, res) =>
    createWebhookHandler({
      secret,
      on: {
        PLUGIN_INSTALLED: (event) => {
          tokens.set(event.data.instance.id, event.data.accessToken);
        },
        AGENT_MESSAGE_RECEIVED: async (event) => {
          const { agentId, conversationId, message } = event.data;
          if (message.content.includes('quiet')) return;
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  own(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const created = await client.plugins.create({
    orgId: platform.orgId,
    name: 'echo',
    description: 'answers with what it was told',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
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
    expect(JSON.parse(faulty.stdout)).toMatchObject({
      ok: false,
      target: 'remote',
      problems: [expect.stringContaining('--faults')],
    });
    expect(platform.requests.slice(from)).toEqual([]);
  });
});
