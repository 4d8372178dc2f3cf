import { Ajv2020 } from 'ajv/dist/2020.js';
import { request } from 'undici';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { EVENT_KINDS } from '#contract';
import { WebhookServer } from '../kit/webhook-server.js';
import { api, emulator } from '../kit/index.js';

// Every kind of event the emulator really sends, through the platform's own flows (no admin
// trigger), must match its schema in the OpenAPI document's `webhooks`: the document a plugin
// author in another language generates types from, and the source of `WebhookEventOf`.

let emu: Emulator;
let hook: WebhookServer;

const call = (method: string, path: string, body?: unknown, base = emu.url, auth = emu.token!) =>
  api(base, { token: `Bearer ${auth}` }).data(method, path, body);

async function plugin(type: string, events: string[], scopes: string[]) {
  const created = await call('POST', '/api/plugins', {
    orgId: 'org_dev',
    name: `${type} plugin`,
    type,
    events,
    scopes,
    webhookUrl: hook.url,
  });
  expect((await call('POST', `/api/plugins/${created.id}/verify-webhook`)).verified).toBe(true);
  return created.id as string;
}

beforeAll(async () => {
  emu = await emulator();
  hook = await WebhookServer.start();
});
afterAll(async () => {
  await hook.close();
});

test('every event the emulator sends matches its schema in the OpenAPI document', async () => {
  // EVENT_HANDLER on the default agent: challenge, install, a user's message, uninstall.
  const handler = await plugin(
    'EVENT_HANDLER',
    ['AGENT_MESSAGE_RECEIVED'],
    ['AGENT_MESSAGE_WRITE'],
  );
  const onAgent = await call('POST', '/api/agents/agent_nova/plugins', {
    name: 'handler',
    pluginId: handler,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  const conversation = await call(
    'POST',
    '/conversations',
    { characterId: 'char_nova' },
    emu.messagingUrl,
    emu.apiKey!,
  );
  await call(
    'POST',
    `/conversations/${conversation.id}/messages`,
    { type: 'TEXT', content: 'hello' },
    emu.messagingUrl,
    emu.apiKey!,
  );
  await hook.waitFor(1, 'AGENT_MESSAGE_RECEIVED');
  await call('DELETE', `/api/agents/agent_nova/plugins/${onAgent.id}`);

  // DATA_PROVIDER on the default repository: a file added and removed.
  const provider = await plugin(
    'DATA_PROVIDER',
    ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    ['REPOSITORY_FILES_READ'],
  );
  await call('POST', '/api/repositories/repo_docs/data-providers', {
    name: 'docs',
    pluginId: provider,
    events: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    scopes: ['REPOSITORY_FILES_READ'],
  });
  const generated = await call('POST', '/api/generate-upload-url', {
    files: [{ fileName: 'guide.md' }],
    parentId: 'org_dev',
    parentType: 'ORG',
  });
  const { signedUrl, fileRecord } = generated.files[0];
  await (await request(signedUrl, { method: 'PUT', body: '# guide' })).body.dump();
  await call('PATCH', '/api/status', { fileId: fileRecord.id, status: 'UPLOADED' });
  await call('POST', '/api/repositories/repo_docs/files', { fileId: fileRecord.id });
  await call('DELETE', `/api/repositories/repo_docs/files/${fileRecord.id}`);
  await hook.waitFor(1, 'REPOSITORY_FILE_REMOVED');
  await hook.waitFor(2, 'PLUGIN_INSTALLED');
  await hook.waitFor(1, 'PLUGIN_UNINSTALLED');

  const document = (await (await request(`${emu.url}/_emulator/openapi.json`)).body.json()) as {
    webhooks: Record<string, any>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', true);
  const seen = new Set<string>();
  for (const { event } of hook.received) {
    const schema =
      document.webhooks[event.type].post.requestBody.content['application/json'].schema;
    const validate = ajv.compile(schema);
    expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    seen.add(event.type);
  }
  expect([...seen].sort()).toEqual([...EVENT_KINDS].sort());
  // Every event but the challenge names its instance.
  for (const { event } of hook.received)
    expect(event.pluginInstanceId === null).toBe(event.type === 'WEBHOOK_CHALLENGE');
});
