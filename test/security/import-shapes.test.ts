import { beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { call } from '../kit/http.js';
import { WebhookServer, verifiedDataProvider } from '../kit/webhook-server.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

// An import was checked for ids and serializability only: a plugin with `name: 5` (or an agent
// without orgId) was stored, and every route that read it afterwards met a record it could not
// handle. Each record's shape is checked before the swap; a refused import changes nothing.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

async function exportNow(): Promise<any> {
  const res = await call(emu.url, 'GET', '/_emulator/export', { headers: emu.adminHeaders });
  expect(res.status).toBe(200);
  return res.body.data ?? res.body;
}

test('a record of the wrong shape is a 400 naming its path, and nothing changes', async () => {
  const made = await call(emu.url, 'POST', '/api/orgs/org_dev/plugins', {
    token: `Bearer ${emu.token}`,
    body: { name: 'kept', type: 'APP', events: [], scopes: [] },
  });
  expect(made.status).toBe(201);
  const before = await exportNow();
  const bad = structuredClone(before);
  const plugin = bad.collections.plugins.findIndex((p: any) => p.id === made.body.data.id);
  bad.collections.plugins[plugin].name = 5;
  const res = await call(emu.url, 'POST', '/_emulator/import', {
    headers: emu.adminHeaders,
    body: bad,
  });
  expect(res.status).toBe(400);
  expect(res.body.error.details[0]).toMatchObject({
    code: 'invalid_type',
    path: ['collections', 'plugins', String(plugin), 'name'],
    expected: 'a string',
  });
  expect(res.body.error.message).toContain(`collections.plugins.${plugin}.name`);
  expect(emulatorInternals(emu).db.plugins.get(made.body.data.id)?.name).toBe('kept');

  const noOrg = structuredClone(before);
  noOrg.collections.agents = [{ id: 'agent_loose', name: 'Loose', createdAt: 'x', updatedAt: 'x' }];
  const refused = await call(emu.url, 'POST', '/_emulator/import', {
    headers: emu.adminHeaders,
    body: noOrg,
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.details[0].path).toEqual(['collections', 'agents', '0', 'orgId']);
  expect(emulatorInternals(emu).db.agents.has('agent_loose')).toBe(false);
});

test('an export of the running emulator (instances, deliveries, files, messages, tokens) imports back whole', async () => {
  const hook = await WebhookServer.start();
  try {
    const pluginId = await verifiedDataProvider(emu, hook);
    const installed = await call(emu.url, 'POST', '/api/repositories/repo_docs/data-providers', {
      token: `Bearer ${emu.token}`,
      body: { name: 'dp', pluginId, events: [], scopes: [], inputs: {} },
    });
    expect(installed.status, JSON.stringify(installed.body).slice(0, 300)).toBe(201);
  } finally {
    await hook.close();
  }
  const upload = await call(emu.url, 'POST', '/api/generate-upload-url', {
    token: `Bearer ${emu.token}`,
    body: { files: [{ fileName: 'a.txt' }], parentId: 'org_dev', parentType: 'ORG' },
  });
  expect(upload.status).toBe(201);
  const minted = await call(emu.url, 'POST', '/api/tokens', {
    token: `Bearer ${emu.token}`,
    body: { name: 'extra' },
  });
  expect(minted.status).toBeLessThan(300);
  const conversation = await call(emu.messagingUrl, 'POST', '/conversations', {
    token: `Bearer ${emu.apiKey}`,
    body: { characterId: 'char_nova' },
  });
  expect(conversation.status).toBe(201);
  const sent = await call(
    emu.messagingUrl,
    'POST',
    `/conversations/${conversation.body.data.id}/messages`,
    { token: `Bearer ${emu.apiKey}`, body: { content: 'hello' } },
  );
  expect(sent.status).toBeLessThan(300);
  const before = await exportNow();
  for (const name of ['instances', 'deliveries', 'files', 'messages', 'tokens', 'conversations'])
    expect(before.collections[name].length, name).toBeGreaterThan(0);
  const res = await call(emu.url, 'POST', '/_emulator/import', {
    headers: emu.adminHeaders,
    body: before,
  });
  expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
});
