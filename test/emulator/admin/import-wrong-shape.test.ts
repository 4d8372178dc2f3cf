import { adminCall, call, emulator } from '../../kit/index.js';
import { beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { exported } from '../../kit/store-export.js';

// "A 12 MB wrong-shape import (admin only) holds the event loop for 8.3 s" (issue 36): the import's
// schema reported a detail per wrong record (millions), and walking a parsed body for `__proto__`
// took seconds on a 3,000,000-item array. Now a cheap pass refuses the wrong shape first, collecting
// 20 details and counting the rest, an object of more keys than any export has is refused in the
// text scan, and the forbidden-key walk runs only on a body that can hold such a key.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

const HEAD = '{"format":"plugsmith-emulator-export","version":1,"collections":';

async function importText(text: string) {
  return adminCall(emu, 'POST', '/_emulator/import', {
    rawBody: text,
    headers: { 'content-type': 'application/json' },
  });
}

test('a million records that are not objects: a 400 with 20 details that counts the rest; health answers meanwhile; nothing changed', async () => {
  const before = await exported(emu);
  const body = `${HEAD}{"plugins":[${Array(1_000_000).fill('7').join(',')}]}}`;
  const importing = importText(body);
  const health = adminCall(emu, 'GET', '/_emulator/health');
  const [res, healthRes] = await Promise.all([importing, health]);
  expect(healthRes.status).toBe(200);
  expect(res.status).toBe(400);
  expect(res.body.error.message).toBe(
    'Invalid request body: collections.plugins.0 must be object (and 999999 more)',
  );
  expect(res.body.error.details).toHaveLength(20);
  expect(res.body.error.details[0]).toMatchObject({
    code: 'type',
    expected: 'object',
    path: ['collections', 'plugins', '0'],
  });
  expect(await exported(emu)).toEqual(before);
});

test('records without an id, or with an id that is not a string: named with their paths', async () => {
  const records = [...Array(300_000).fill('{"name":"x"}'), '{"id":5}'];
  const res = await importText(`${HEAD}{"plugins":[${records.join(',')}]}}`);
  expect(res.status).toBe(400);
  expect(res.body.error.message).toBe(
    'Invalid request body: collections.plugins.0.id is required (and 300000 more)',
  );
  expect(res.body.error.details[0]).toMatchObject({
    code: 'required',
    path: ['collections', 'plugins', '0', 'id'],
  });
});

test('unknown collections are named; an object of 500,000 keys is refused before it is parsed', async () => {
  const unknown = await importText(`${HEAD}{"plugins":[],"gadgets":[],"widgets":[]}}`);
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.message).toBe(
    'Invalid request body: collections.gadgets is not allowed here (and 1 more)',
  );
  const names = Array.from({ length: 500_000 }, (_, i) => `"c${i}":[]`);
  const wide = await importText(`${HEAD}{${names.join(',')}}}`);
  expect(wide.status).toBe(400);
  expect(wide.body.error.message).toMatch(/more than 10000 keys \(at collections\)/);
});

test('a forbidden key is still refused in an import, also spelled with an escape', async () => {
  for (const key of ['__proto__', '\\u005f_proto__']) {
    const res = await importText(
      `${HEAD}{"plugins":[{"id":"p1","nested":{"${key}":{"polluted":true}}}]}}`,
    );
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain('__proto__');
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test("a repository file's addedBy that is not a user or an instance is refused; a recorded one comes back in the list", async () => {
  const collections = await exported(emu);
  const link = (addedBy: unknown) => ({
    id: 'rfile_imported',
    repositoryId: 'repo_docs',
    fileId: 'file_imported',
    addedBy,
    createdAt: '2026-01-02T03:04:05.000Z',
    updatedAt: '2026-01-02T03:04:05.000Z',
  });
  const file = {
    id: 'file_imported',
    fileName: 'imported.md',
    contentType: 'text/markdown',
    fileSize: 3,
    isPublic: false,
    status: 'UPLOADED',
    errorMessage: null,
    parentId: 'org_dev',
    parentType: 'ORG',
    folder: null,
    orgId: 'org_dev',
    storageKey: 'file_imported',
    createdAt: '2026-01-02T03:04:05.000Z',
    updatedAt: '2026-01-02T03:04:05.000Z',
  };
  const body = (addedBy: unknown) =>
    JSON.stringify({
      format: 'plugsmith-emulator-export',
      version: 1,
      collections: { ...collections, files: [file], repositoryFiles: [link(addedBy)] },
    });
  const refused = await importText(body('usr_dev'));
  expect(refused.status).toBe(400);
  expect(refused.body.error.details[0]).toMatchObject({
    path: ['collections', 'repositoryFiles', '0', 'addedBy'],
  });

  const imported = await importText(body({ kind: 'user', userId: 'usr_imported' }));
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  const listed = await call(emu.url, 'GET', '/api/repositories/repo_docs/files', {
    headers: { authorization: `Bearer ${emu.token}` },
  });
  expect(listed.status).toBe(200);
  expect(listed.body.data).toEqual([
    expect.objectContaining({
      id: 'file_imported',
      addedAt: '2026-01-02T03:04:05.000Z',
      addedBy: { kind: 'user', userId: 'usr_imported' },
    }),
  ]);
});

test('records the API could not answer are refused with the field named, from a real export: a plugin without its description, an attempt that is no object, a message without its fields', async () => {
  const plugin = await call(emu.url, 'POST', '/api/plugins', {
    token: emu.token!,
    body: { orgId: emu.orgId, name: 'real', type: 'APP' },
  });
  expect(plugin.status).toBe(201);
  const res = await adminCall(emu, 'GET', '/_emulator/export');
  // The export answers in the API's envelope; its data is the file `emulator export` writes.
  const good = res.body.data as {
    collections: Record<string, Array<Record<string, unknown>>>;
  };
  const before = await exported(emu);
  const edited = (edit: (c: typeof good.collections) => void) => {
    const copy = structuredClone(good);
    edit(copy.collections);
    return JSON.stringify(copy);
  };
  const stamp = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
  const cases: Array<[string, string]> = [
    [
      edited((c) => {
        delete c.plugins.find((p) => p.id === plugin.body.data.id)!.description;
      }),
      'description is missing',
    ],
    [
      edited((c) => {
        c.deliveries = [
          {
            id: 'dlv_1',
            pluginId: plugin.body.data.id,
            orgId: emu.orgId,
            eventId: 'evt_1',
            status: 'failed',
            attempts: [1, null, 'x'],
            event: {},
            secret: 'whsec_x',
            ...stamp,
          },
        ];
      }),
      'collections.deliveries.0.',
    ],
    [
      edited((c) => {
        c.conversations = [{ id: 'conv_1', characterId: 'char_x', orgId: emu.orgId, ...stamp }];
        c.messages = [
          {
            id: 'msg_1',
            conversationId: 'conv_1',
            sender: 'USER',
            content: 'hi',
            attachments: [],
            isStreaming: false,
            ...stamp,
          },
        ];
      }),
      'collections.',
    ],
  ];
  for (const [text, named] of cases) {
    const refused = await importText(text);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error.message).toContain(named);
    expect(refused.body.error.message).toMatch(/\(record [^)]+\)/);
  }
  expect(await exported(emu)).toEqual(before);
  // The export itself imports, so the check holds every record the emulator writes.
  expect((await importText(JSON.stringify(good))).status).toBe(200);
});
