import { mkdir, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import { freePort } from '../kit/ports.js';

// `plugsmith trigger` against the real EVENT_HANDLER template: a project made by `plugsmith init`,
// using this package as its `plugsmith` dependency, its plugin started from the project's own
// sources. The template answers AGENT_MESSAGE_RECEIVED by writing the character's message into
// the event's conversation, so the event must be about a conversation that exists.

const t = useCliEnv();
const ROOT = resolve(import.meta.dirname, '../..');

interface RunningPlugin {
  webhookUrl: string;
  close(): Promise<void>;
}

let pluginId: string;
let plugin: RunningPlugin;
let providerId: string;

beforeAll(async () => {
  const dir = join(t.dir, 'answers');
  const init = await t.cli(['init', dir, '--type', 'EVENT_HANDLER', '--yes']);
  expect(init.code, init.stderr).toBe(0);
  // The project's `plugsmith` dependency is this package (its exports point into dist/).
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules/plugsmith'), 'dir');

  const port = await freePort();
  const deployed = await t.json(
    ['deploy', '--manifest', join(dir, 'plugsmith.json'), '--org', ORG],
    { PORT: String(port) },
  );
  pluginId = deployed.pluginId ?? deployed.plugin?.id;
  expect(pluginId, JSON.stringify(deployed)).toMatch(/^plg_/);
  const secret = (await t.cli(['plugins', 'secret', pluginId])).stdout.trim();

  const { startPlugin } = (await import(pathToFileURL(join(dir, 'src/plugin.ts')).href)) as {
    startPlugin(config: Record<string, unknown>): Promise<RunningPlugin>;
  };
  plugin = await startPlugin({
    port,
    host: '127.0.0.1',
    webhookSecret: secret,
    platformUrl: t.emu.url,
    dataDir: join(dir, '.data'),
    tokenFile: join(dir, '.data/tokens.json'),
  });

  const verified = await t.json(['plugins', 'verify', pluginId]);
  expect(verified.verified, JSON.stringify(verified)).toBe(true);
  const installed = await t.json([
    'handlers',
    'add',
    'agent_nova',
    '--plugin',
    pluginId,
    '--scopes',
    'AGENT_MESSAGE_WRITE',
    '--dispatch-mode',
    'SYNC',
  ]);
  expect(installed).toMatchObject({ entityType: 'AGENT', entityId: 'agent_nova', pluginId });

  const provider = await t.json([
    'plugins',
    'create',
    '--org',
    ORG,
    '--name',
    'files',
    '--type',
    'DATA_PROVIDER',
    '--events',
    'REPOSITORY_FILE_ADDED',
  ]);
  providerId = provider.id;
});

afterAll(async () => {
  await plugin?.close();
});

describe('plugsmith trigger against the EVENT_HANDLER template', () => {
  test('AGENT_MESSAGE_RECEIVED goes through a real conversation and prints the reply the plugin wrote', async () => {
    const run = await t.cli(['trigger', 'AGENT_MESSAGE_RECEIVED', '--plugin', pluginId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^delivery dlv_\S+ delivered \(HTTP 200/m);
    expect(run.stdout).toMatch(
      /^reply in conv_\S+: You said: Hello! Can you help me find the onboarding guide\?$/m,
    );

    const json = await t.json(['trigger', 'AGENT_MESSAGE_RECEIVED', '--plugin', pluginId]);
    expect(json.delivery.status).toBe('delivered');
    expect(json.reply).toMatchObject({
      conversationId: json.conversationId,
      sender: 'CHARACTER',
      isStreaming: false,
      content: expect.stringMatching(/^You said: /),
    });
  });

  test('--set message.content=... is sent for a real conversation, and the plugin answers it', async () => {
    const json = await t.json([
      'trigger',
      'AGENT_MESSAGE_RECEIVED',
      '--plugin',
      pluginId,
      '--set',
      'message.content=Where is the guide?',
    ]);
    expect(json.delivery).toMatchObject({ status: 'delivered' });
    expect(json.delivery.attempts).toHaveLength(1);
    expect(json.reply).toMatchObject({
      sender: 'CHARACTER',
      content: 'You said: Where is the guide?',
    });
    // The reply is in the conversation the event named, which the messaging API shows.
    const { data: messages } = await t.api.messaging.messages.list(json.conversationId);
    expect(messages.map((m) => m.content)).toContain('You said: Where is the guide?');

    const again = await t.cli([
      'trigger',
      'AGENT_MESSAGE_RECEIVED',
      '--plugin',
      pluginId,
      '--set',
      'message.content=Twice',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^reply in conv_\S+: You said: Twice$/m);
  });

  test('an event that does not apply to the plugin type says so, without pointing back at trigger', async () => {
    const run = await t.cli(['trigger', 'AGENT_MESSAGE_RECEIVED', '--plugin', providerId]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `AGENT_MESSAGE_RECEIVED does not apply to plugin ${providerId}: it goes to EVENT_HANDLER plugins only, and this one is a DATA_PROVIDER`,
    );
    expect(run.stderr).not.toContain('plugsmith trigger');
    const files = await t.cli([
      'trigger',
      'REPOSITORY_FILE_ADDED',
      '--plugin',
      pluginId,
      '--set',
      'file.fileName=x',
    ]);
    expect(files.code).toBe(2);
    expect(files.stderr).toContain('goes to DATA_PROVIDER plugins only');
  });
});
