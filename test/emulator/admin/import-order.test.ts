// An import brings records in whatever order its file holds them; every list is still sorted by
// the records' own createdAt (then id), not by the order they were inserted in.
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  ORG,
  TOKENS,
  startMatrixEmulator,
  type MatrixEmulator,
} from '../../kit/matrix-emulator.js';
import { expectOk } from '../../kit/envelope.js';

let m: MatrixEmulator;
beforeAll(async () => {
  m = await startMatrixEmulator();
});
afterAll(() => m.emu.close());

test('after an import of plugins created mid, old, new, the default order is new, mid, old everywhere', async () => {
  const template = await m.createPlugin({ isPublic: true, tags: ['import-order'] });
  const exported = expectOk(await m.call('GET', '/_emulator/export'));
  const at = (iso: string, name: string) => ({
    ...template,
    id: `plg_${name}`,
    name,
    createdAt: iso,
    updatedAt: iso,
  });
  const plugins = [
    at('2024-06-01T00:00:00.000Z', 'mid'),
    at('2023-01-01T00:00:00.000Z', 'old'),
    at('2025-01-01T00:00:00.000Z', 'new'),
  ];
  expectOk(
    await m.call('POST', '/_emulator/import', {
      body: { ...exported, collections: { ...exported.collections, plugins } },
    }),
  );

  const names = (data: Array<{ name: string }>) => data.map((p) => p.name);
  const lists = ['/api/plugins/marketplace', `/api/orgs/${ORG}/plugins`];
  for (const path of lists) {
    const token = TOKENS.member;
    expect(names(expectOk(await m.call('GET', path, { token })))).toEqual(['new', 'mid', 'old']);
    expect(
      names(expectOk(await m.call('GET', path, { token, query: { '@sortBy': 'createdAt' } }))),
    ).toEqual(['new', 'mid', 'old']);
    expect(
      names(expectOk(await m.call('GET', path, { token, query: { tags: 'import-order' } }))),
    ).toEqual(['new', 'mid', 'old']);
    expect(
      names(expectOk(await m.call('GET', path, { token, query: { '@sortOrder': 'asc' } }))),
    ).toEqual(['old', 'mid', 'new']);
    // A cursor walk in the same order.
    const first = await m.call('GET', path, { token, query: { '@cursor': '', '@limit': 2 } });
    expect(names(expectOk(first))).toEqual(['new', 'mid']);
    expect(
      names(
        expectOk(
          await m.call('GET', path, {
            token,
            query: { '@cursor': first.body.meta.pagination.nextCursor, '@limit': 2 },
          }),
        ),
      ),
    ).toEqual(['old']);
  }
});
