import { describe, expect, it } from 'vitest';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import { ok, receiver } from '../kit/index.js';

const pagination = {
  type: 'index',
  page: 1,
  limit: 20,
  total: 1,
  totalPages: 1,
  hasNext: false,
  hasPrev: false,
};

async function echoClient(
  options: { token?: string; apiKey?: string; adminToken?: string } = {
    token: 'tok_olive',
    apiKey: 'key_acme',
    adminToken: 'psa_client_test',
  },
) {
  const server = await receiver((req, res) =>
    ok(res, { seen: `${req.method} ${req.url}`, extra: 'kept' }, { pagination }),
  );
  const client = createClient({
    baseUrl: server.url + '/',
    messagingUrl: server.url,
    retries: 0,
    ...options,
  });
  return { server, client };
}

type Row = [string, (c: PlatformClient) => Promise<unknown>, string, string, unknown?];

// Every method: the HTTP method, the exact path+query the server receives, and the JSON body.
const rows: Row[] = [
  [
    'tokens.create',
    (c) => c.tokens.create({ name: 'ci', orgId: 'org_acme' }),
    'POST',
    '/api/tokens',
    { name: 'ci', orgId: 'org_acme' },
  ],
  [
    'plugins.create',
    (c) => c.plugins.create({ name: 'p', type: 'APP', orgId: 'o' }),
    'POST',
    '/api/plugins',
    { name: 'p', type: 'APP', orgId: 'o' },
  ],
  [
    'plugins.createInOrg',
    (c) => c.plugins.createInOrg('org/1', { name: 'p', type: 'APP' }),
    'POST',
    '/api/orgs/org%2F1/plugins',
    { name: 'p', type: 'APP' },
  ],
  ['plugins.get', (c) => c.plugins.get('plg_1'), 'GET', '/api/plugins/plg_1'],
  [
    'plugins.listByOrg',
    (c) => c.plugins.listByOrg('org_acme', { limit: 5 }),
    'GET',
    '/api/orgs/org_acme/plugins?@limit=5',
  ],
  [
    'plugins.marketplace',
    (c) => c.plugins.marketplace({ search: 'files', filters: { isPublic: true } }),
    'GET',
    '/api/plugins/marketplace?@search=files&isPublic=true',
  ],
  [
    'plugins.update',
    (c) => c.plugins.update('plg_1', { webhookUrl: 'https://x.test/h' }),
    'PUT',
    '/api/plugins/plg_1',
    { webhookUrl: 'https://x.test/h' },
  ],
  ['plugins.delete', (c) => c.plugins.delete('plg_1'), 'DELETE', '/api/plugins/plg_1'],
  [
    'plugins.verifyWebhook',
    (c) => c.plugins.verifyWebhook('plg_1'),
    'POST',
    '/api/plugins/plg_1/verify-webhook',
  ],
  ['actions.list', (c) => c.actions.list('plg_1'), 'GET', '/api/plugins/plg_1/actions'],
  [
    'actions.get',
    (c) => c.actions.get('plg_1', 'send mail/now'),
    'GET',
    '/api/plugins/plg_1/actions/send%20mail%2Fnow',
  ],
  [
    'actions.create',
    (c) => c.actions.create('plg_1', { name: 'a', title: 'A' }),
    'POST',
    '/api/plugins/plg_1/actions',
    { name: 'a', title: 'A' },
  ],
  [
    'actions.update',
    (c) => c.actions.update('plg_1', 'a', { title: 'B' }),
    'PUT',
    '/api/plugins/plg_1/actions/a',
    { title: 'B' },
  ],
  [
    'actions.delete',
    (c) => c.actions.delete('plg_1', 'a'),
    'DELETE',
    '/api/plugins/plg_1/actions/a',
  ],
  [
    'externalEvents.list',
    (c) => c.externalEvents.list('plg_1', { page: 2 }),
    'GET',
    '/api/plugins/plg_1/external-events?@page=2',
  ],
  [
    'externalEvents.get',
    (c) => c.externalEvents.get('plg_1', 'order.paid'),
    'GET',
    '/api/plugins/plg_1/external-events/order.paid',
  ],
  [
    'externalEvents.create',
    (c) => c.externalEvents.create('plg_1', { name: 'e' }),
    'POST',
    '/api/plugins/plg_1/external-events',
    { name: 'e' },
  ],
  [
    'externalEvents.update',
    (c) => c.externalEvents.update('plg_1', 'e', { title: 'E' }),
    'PUT',
    '/api/plugins/plg_1/external-events/e',
    { title: 'E' },
  ],
  [
    'externalEvents.delete',
    (c) => c.externalEvents.delete('plg_1', 'e'),
    'DELETE',
    '/api/plugins/plg_1/external-events/e',
  ],
  [
    'repositories.create',
    (c) => c.repositories.create({ name: 'r', orgId: 'o' }),
    'POST',
    '/api/repositories',
    { name: 'r', orgId: 'o' },
  ],
  [
    'repositories.createInOrg',
    (c) => c.repositories.createInOrg('o', { name: 'r' }),
    'POST',
    '/api/orgs/o/repositories',
    { name: 'r' },
  ],
  ['repositories.get', (c) => c.repositories.get('repo_1'), 'GET', '/api/repositories/repo_1'],
  [
    'repositories.listByOrg',
    (c) => c.repositories.listByOrg('o'),
    'GET',
    '/api/orgs/o/repositories',
  ],
  [
    'repositories.files.add',
    (c) => c.repositories.files.add('repo_1', 'file_1'),
    'POST',
    '/api/repositories/repo_1/files',
    { fileId: 'file_1' },
  ],
  [
    'repositories.files.list',
    (c) => c.repositories.files.list('repo_1'),
    'GET',
    '/api/repositories/repo_1/files',
  ],
  [
    'repositories.files.remove',
    (c) => c.repositories.files.remove('repo_1', 'file_1'),
    'DELETE',
    '/api/repositories/repo_1/files/file_1',
  ],
  [
    'dataProviders.install',
    (c) =>
      c.dataProviders.install('repo_1', { name: 'n', pluginId: 'p', events: ['E'], scopes: ['S'] }),
    'POST',
    '/api/repositories/repo_1/data-providers',
    { name: 'n', pluginId: 'p', events: ['E'], scopes: ['S'] },
  ],
  [
    'dataProviders.list',
    (c) => c.dataProviders.list('repo_1'),
    'GET',
    '/api/repositories/repo_1/data-providers',
  ],
  [
    'dataProviders.remove',
    (c) => c.dataProviders.remove('repo_1', 'inst_1'),
    'DELETE',
    '/api/repositories/repo_1/data-providers/inst_1',
  ],
  [
    'agentPlugins.install',
    (c) =>
      c.agentPlugins.install('agent_nova', { name: 'n', pluginId: 'p', events: [], scopes: [] }),
    'POST',
    '/api/agents/agent_nova/plugins',
    { name: 'n', pluginId: 'p', events: [], scopes: [] },
  ],
  [
    'agentPlugins.list',
    (c) => c.agentPlugins.list('agent_nova'),
    'GET',
    '/api/agents/agent_nova/plugins',
  ],
  [
    'agentPlugins.remove',
    (c) => c.agentPlugins.remove('agent_nova', 'inst_1'),
    'DELETE',
    '/api/agents/agent_nova/plugins/inst_1',
  ],
  [
    'appPlugins.install',
    (c) => c.appPlugins.install('app_1', { name: 'n', pluginId: 'p', events: [], scopes: [] }),
    'POST',
    '/api/apps/app_1/plugins',
    { name: 'n', pluginId: 'p', events: [], scopes: [] },
  ],
  ['appPlugins.list', (c) => c.appPlugins.list('app_1'), 'GET', '/api/apps/app_1/plugins'],
  [
    'appPlugins.remove',
    (c) => c.appPlugins.remove('app_1', 'inst_1'),
    'DELETE',
    '/api/apps/app_1/plugins/inst_1',
  ],
  [
    'agentMessages.write',
    (c) => c.agentMessages.write('agent_nova', 'conv_1', { content: 'hi', isStreaming: false }),
    'POST',
    '/api/agents/agent_nova/conversations/conv_1/messages',
    { content: 'hi', isStreaming: false },
  ],
  [
    'uploads.generateUploadUrls',
    (c) =>
      c.uploads.generateUploadUrls({ files: [{ fileName: 'a.txt', fileSize: 3 }], folder: 'docs' }),
    'POST',
    '/api/generate-upload-url',
    { files: [{ fileName: 'a.txt', fileSize: 3 }], folder: 'docs' },
  ],
  [
    'uploads.setStatus',
    (c) => c.uploads.setStatus({ fileId: 'f', status: 'FAILED', errorMessage: 'x' }),
    'PATCH',
    '/api/status',
    { fileId: 'f', status: 'FAILED', errorMessage: 'x' },
  ],
  [
    'uploads.list',
    (c) => c.uploads.list({ parentId: 'org_acme', parentType: 'ORG', limit: 3 }),
    'GET',
    '/api?parentId=org_acme&parentType=ORG&@limit=3',
  ],
  [
    'uploads.accessUrl',
    (c) => c.uploads.accessUrl('file_1', 60),
    'GET',
    '/api/access/file_1?expiresIn=60',
  ],
  ['emulator.health', (c) => c.emulator.health(), 'GET', '/_emulator/health'],
  [
    'emulator.deliveries.list',
    (c) => c.emulator.deliveries.list({ pluginId: 'p' }),
    'GET',
    '/_emulator/deliveries?pluginId=p',
  ],
  [
    'emulator.deliveries.redeliver',
    (c) => c.emulator.deliveries.redeliver('dlv_1'),
    'POST',
    '/_emulator/deliveries/dlv_1/redeliver',
  ],
  [
    "emulator.deliveries.list (the log's own filters)",
    (c) =>
      c.emulator.deliveries.list({
        pluginId: 'p',
        failedOnce: true,
        httpStatus: '5xx',
        minAttempts: 2,
        since: '2026-01-01T00:00:00Z',
        filters: { status: ['failed', 'exhausted'] },
        limit: 5,
      }),
    'GET',
    '/_emulator/deliveries?pluginId=p&@failedOnce=true&@httpStatus=5xx&@minAttempts=2&@since=2026-01-01T00%3A00%3A00Z&@limit=5&status=failed&status=exhausted',
  ],
  [
    'emulator.deliveries.redeliverMatching',
    (c) =>
      c.emulator.deliveries.redeliverMatching({
        pluginId: 'p',
        httpStatus: '5xx,none',
        maxAttempts: 3,
        until: '2026-01-02T00:00:00Z',
        search: 'inv',
        filters: { type: 'PLUGIN_INSTALLED' },
      }),
    'POST',
    '/_emulator/deliveries/redeliver?pluginId=p&@httpStatus=5xx%2Cnone&@maxAttempts=3&@until=2026-01-02T00%3A00%3A00Z&@search=inv&type=PLUGIN_INSTALLED',
  ],
  [
    'emulator.deliveries.retry',
    (c) => c.emulator.deliveries.retry('dlv_1'),
    'POST',
    '/_emulator/deliveries/dlv_1/retry',
  ],
  [
    'emulator.deliveries.cancel',
    (c) => c.emulator.deliveries.cancel('dlv_1'),
    'POST',
    '/_emulator/deliveries/dlv_1/cancel',
  ],
  [
    'emulator.characters.list',
    (c) => c.emulator.characters.list({ filters: { orgId: 'org_acme' } }),
    'GET',
    '/_emulator/characters?orgId=org_acme',
  ],
  [
    'emulator.characters.get',
    (c) => c.emulator.characters.get('char_nova'),
    'GET',
    '/_emulator/characters/char_nova',
  ],
  [
    'emulator.deliveries.get',
    (c) => c.emulator.deliveries.get('dlv_1'),
    'GET',
    '/_emulator/deliveries/dlv_1',
  ],
];

describe('management resources', () => {
  it.each(rows)(
    '%s sends %s to the right URL with the right body',
    async (_name, call, method, url, body) => {
      const { server, client } = await echoClient();
      await call(client);
      expect(server.received).toHaveLength(1);
      const got = server.received[0];
      expect(`${got.method} ${got.url}`).toBe(`${method} ${url}`);
      expect(got.headers.authorization).toBe('Bearer tok_olive');
      // The emulator's admin credential goes to its admin API only, never to the platform's /api.
      expect(got.headers['x-plugsmith-admin']).toBe(
        url.startsWith('/_emulator') ? 'psa_client_test' : undefined,
      );
      if (body === undefined) expect(got.body).toBe('');
      else {
        expect(JSON.parse(got.body)).toEqual(body);
        expect(got.headers['content-type']).toBe('application/json');
      }
    },
  );
});

describe('messaging resources', () => {
  const messagingRows: Row[] = [
    [
      'conversations.create',
      (c) => c.messaging.conversations.create({ characterId: 'char_nova' }),
      'POST',
      '/conversations',
      { characterId: 'char_nova' },
    ],
    [
      'conversations.get',
      (c) => c.messaging.conversations.get('conv_1'),
      'GET',
      '/conversations/conv_1',
    ],
    [
      'messages.send',
      (c) =>
        c.messaging.messages.send('conv_1', {
          content: 'hello',
          type: 'TEXT',
          attachments: [{ type: 'IMAGE_URL', content: 'https://x.test/a.png' }],
        }),
      'POST',
      '/conversations/conv_1/messages',
      {
        content: 'hello',
        type: 'TEXT',
        attachments: [{ type: 'IMAGE_URL', content: 'https://x.test/a.png' }],
      },
    ],
    [
      'messages.list',
      (c) => c.messaging.messages.list('conv_1', { after: 'msg_9', limit: 50 }),
      'GET',
      '/conversations/conv_1/messages?after=msg_9&limit=50',
    ],
  ];
  it.each(messagingRows)('%s sends %s with the API key', async (_name, call, method, url, body) => {
    const { server, client } = await echoClient();
    await call(client);
    const got = server.received[0];
    expect(`${got.method} ${got.url}`).toBe(`${method} ${url}`);
    expect(got.headers.authorization).toBe('Bearer key_acme');
    expect(got.headers['x-plugsmith-admin']).toBeUndefined();
    if (body !== undefined) expect(JSON.parse(got.body)).toEqual(body);
  });

  it('refuses messaging calls without a messaging URL, naming the option', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    await expect(client.messaging.conversations.get('c')).rejects.toThrow(/messagingUrl/);
  });
});

describe('envelope', () => {
  it('returns data, keeping unknown fields, and list methods return data with pagination', async () => {
    const { client } = await echoClient();
    const plugin = await client.plugins.get('plg_1');
    expect(plugin).toEqual({ seen: 'GET /api/plugins/plg_1', extra: 'kept' });
    const server = await receiver((_req, res) =>
      ok(res, [{ id: 'a', future: 1 }], { pagination, requestId: 'r1' }),
    );
    const lister = createClient({ baseUrl: server.url });
    const page = await lister.plugins.marketplace();
    expect(page.data).toEqual([{ id: 'a', future: 1 }]);
    expect(page.pagination).toEqual(pagination);
    expect(page.meta?.requestId).toBe('r1');
  });

  it('sends no Authorization when there is no token (marketplace browsing)', async () => {
    const { server, client } = await echoClient({});
    await client.plugins.marketplace();
    expect(server.received[0].headers.authorization).toBeUndefined();
  });

  it('does not double the Bearer scheme and sends the user agent', async () => {
    const server = await receiver((_req, res) => ok(res, {}));
    const client = createClient({
      baseUrl: server.url,
      token: 'Bearer tok_x',
      userAgent: 'plugsmith/9.9',
    });
    await client.plugins.get('p');
    expect(server.received[0].headers.authorization).toBe('Bearer tok_x');
    expect(server.received[0].headers['user-agent']).toBe('plugsmith/9.9');
  });

  it('keeps a base URL path prefix', async () => {
    const server = await receiver((_req, res) => ok(res, {}));
    const client = createClient({ baseUrl: `${server.url}/platform/` });
    await client.plugins.get('p');
    expect(server.received[0].url).toBe('/platform/api/plugins/p');
  });

  it('withOptions swaps the token (an instance token) and keeps the rest', async () => {
    const { server, client } = await echoClient();
    await client.withOptions({ token: 'inst_tok' }).agentMessages.write('a', 'c', { content: 'x' });
    expect(server.received[0].headers.authorization).toBe('Bearer inst_tok');
  });

  it('passes through a body without the envelope and returns undefined for an empty 204', async () => {
    const server = await receiver((req, res) => {
      if (req.method === 'DELETE') {
        res.statusCode = 204;
        res.end();
      } else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: 'plg_raw' }));
      }
    });
    const client = createClient({ baseUrl: server.url });
    expect(await client.plugins.get('p')).toEqual({ id: 'plg_raw' });
    expect(await client.plugins.delete('p')).toBeUndefined();
  });

  it('rejects an invalid base URL early', () => {
    expect(() => createClient({ baseUrl: 'localhost:4010' })).toThrow(/absolute http/);
  });
});
