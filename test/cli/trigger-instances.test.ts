import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/shared/webhooks/index.js';
import { own, server as serve, tempDir } from '../kit/index.js';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { stateFiles } from '../kit/emulator-state.js';

// `plugsmith trigger` against an emulator started by `plugsmith emulator start`, the CLI spawned
// with what CI scripts set: PLUGSMITH_BASE_URL and PLUGSMITH_TOKEN, nothing else (the admin
// credential comes from the emulator's state file in the config dir).

interface EmulatorState {
  url: string;
  messagingUrl: string;
  token: string;
  adminToken: string;
  orgId: string;
}

let configDir: string;
let state: EmulatorState;
let admin: PlatformClient;
let events: WebhookEvent[];
let pluginId: string;

/** The CI-style environment: the management URL and a user token only. */
const ciEnv = () => ({
  PLUGSMITH_CONFIG_DIR: configDir,
  PLUGSMITH_BASE_URL: state.url,
  PLUGSMITH_TOKEN: state.token,
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
  PLUGSMITH_ADMIN_TOKEN: '',
});

const trigger = (args: string[]) =>
  runCli(['trigger', ...args, '--plugin', pluginId], { env: ciEnv() });

const instanceIds = async () =>
  (await admin.emulator.instancesOf(pluginId)).map((instance) => instance.id);

const received = (type: string) => events.filter((event) => event.type === type);

beforeAll(async () => {
  configDir = await tempDir('plugsmith-cfg-');
  const emulator = spawnCli(
    ['emulator', 'start', '--port', '0', '--messaging-port', '0', '--in-memory', '--json'],
    { env: { PLUGSMITH_CONFIG_DIR: configDir }, onTestFinished: (stop) => own(stop) },
  );
  await emulator.nextLine();
  const [stateFile] = await stateFiles(configDir);
  state = JSON.parse(await readFile(stateFile, 'utf8')) as EmulatorState;
  admin = createClient({
    baseUrl: state.url,
    messagingUrl: state.messagingUrl,
    token: state.token,
    adminToken: state.adminToken,
  });
  own(() => admin.close());

  // An EVENT_HANDLER's real webhook: verifies signatures, keeps installation tokens, answers messages.
  events = [];
  const tokens = new Map<string, string>();
  const created = await admin.plugins.createInOrg(state.orgId, {
    name: 'Counting handler',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  pluginId = created.id;
  const secret = String((await admin.plugins.get(pluginId)).webhookSecret);
  const handler = createWebhookHandler({
    secret,
    on: {
      WEBHOOK_CHALLENGE: (event) => void events.push(event),
      PLUGIN_INSTALLED: (event) => {
        events.push(event);
        const data = event.data as { accessToken: string };
        tokens.set(String(event.pluginInstanceId), data.accessToken);
      },
      AGENT_MESSAGE_RECEIVED: async (event) => {
        events.push(event);
        const { agentId, conversationId } = event.data as {
          agentId: string;
          conversationId: string;
        };
        const token = tokens.get(String(event.pluginInstanceId));
        if (!token) return;
        const platform = createClient({ baseUrl: state.url, token });
        try {
          await platform.agentMessages.write(agentId, conversationId, {
            content: `answered by ${String(event.pluginInstanceId)}`,
            isStreaming: false,
          });
        } finally {
          await platform.close();
        }
      },
    },
  });
  const webhook = await serve(handler);
  own(() => webhook.close());
  await admin.plugins.update(pluginId, { webhookUrl: `${webhook.url}/webhook` });
  await admin.plugins.verifyWebhook(pluginId);
});

describe('plugsmith trigger, CI style', () => {
  test('PLUGIN_INSTALLED installs a first instance, then resends its install: never a second instance', async () => {
    const first = await trigger(['PLUGIN_INSTALLED', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const installed = await instanceIds();
    expect(installed).toHaveLength(1);

    const again = await trigger(['PLUGIN_INSTALLED', '--json']);
    expect(again.code, again.stderr).toBe(0);
    const resent = JSON.parse(again.stdout);
    expect(resent).toMatchObject({
      pluginInstanceId: installed[0],
      delivery: { status: 'delivered' },
    });
    expect(resent.via).toContain('no instance added');
    expect(await instanceIds()).toEqual(installed);
    // The same event again, with the same token: what a platform's redelivery of the install sends.
    const installs = received('PLUGIN_INSTALLED');
    expect(installs).toHaveLength(2);
    expect(installs[1].id).toBe(installs[0].id);
    expect(installs[1].data).toEqual(installs[0].data);

    // A later message is delivered once, to the one instance, and answered once.
    const before = received('AGENT_MESSAGE_RECEIVED').length;
    const message = await trigger(['AGENT_MESSAGE_RECEIVED', '--json']);
    expect(message.code, message.stderr).toBe(0);
    const answered = JSON.parse(message.stdout);
    expect(received('AGENT_MESSAGE_RECEIVED')).toHaveLength(before + 1);
    const conversation = await admin.emulator.deliveries.list({
      pluginId,
      filters: { type: 'AGENT_MESSAGE_RECEIVED' },
    });
    expect(
      conversation.data.filter(
        (d) =>
          (d.event as { data: { conversationId: string } }).data.conversationId ===
          answered.conversationId,
      ),
    ).toHaveLength(1);
  });

  test('AGENT_MESSAGE_RECEIVED works with only PLUGSMITH_BASE_URL and PLUGSMITH_TOKEN, and leaves no API key behind', async () => {
    const listKeys = async () =>
      ((await admin.emulator.export()) as { collections: { apiKeys?: unknown[] } }).collections
        .apiKeys ?? [];
    const before = (await listKeys()).length;
    const result = await trigger(['AGENT_MESSAGE_RECEIVED', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const answered = JSON.parse(result.stdout);
    expect(answered.delivery.status).toBe('delivered');
    expect(answered.reply).toMatchObject({
      sender: 'CHARACTER',
      content: `answered by ${answered.pluginInstanceId}`,
    });
    expect((await listKeys()).length).toBe(before);
  });

  test('-q prints only what a script takes: an id, ids, a token; nothing on stderr', async () => {
    const quiet = (args: string[]) => runCli([...args, '-q'], { env: ciEnv() });
    const added = await quiet([
      'handlers',
      'add',
      'agent_nova',
      '--plugin',
      pluginId,
      '--scopes',
      'AGENT_MESSAGE_WRITE',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^pin_\S+\n$/);
    expect(added.stderr).toBe('');
    const instanceId = added.stdout.trim();
    expect(await instanceIds()).toContain(instanceId);

    const triggered = await quiet(['trigger', 'PLUGIN_INSTALLED', '--plugin', pluginId]);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.stdout).toMatch(/^dlv_\S+\n$/);
    expect(triggered.stderr).toBe('');
    const delivery = await admin.emulator.deliveries.get(triggered.stdout.trim());
    expect(delivery.type).toBe('PLUGIN_INSTALLED');
    const redelivered = await quiet(['logs', 'redeliver', delivery.id]);
    expect(redelivered.code, redelivered.stderr).toBe(0);
    expect(redelivered.stdout).toMatch(/^dlv_\S+\n$/);
    expect(redelivered.stdout.trim()).not.toBe(delivery.id);

    const message = await quiet(['trigger', 'AGENT_MESSAGE_RECEIVED', '--plugin', pluginId]);
    expect(message.code, message.stderr).toBe(0);
    expect(message.stdout).toMatch(/^dlv_\S+\n$/);
    expect(message.stderr).toBe('');

    const listed = await quiet(['handlers', 'list', 'agent_nova']);
    expect(listed.stdout.trim().split('\n').sort()).toEqual((await instanceIds()).sort());
    const created = await quiet([
      'plugins',
      'create',
      '--org',
      state.orgId,
      '--name',
      'Quiet',
      '--type',
      'APP',
    ]);
    expect(created.stdout).toMatch(/^plg_\S+\n$/);
    const token = await quiet(['tokens', 'create', '--name', 'quiet']);
    expect(token.stdout).toMatch(/^pst_\S+\n$/);
    expect(token.stderr).toBe('');
  });
});
