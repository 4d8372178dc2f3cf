// Data dirs written before the store's snapshot became one lowdb document (layout 2: a line per
// record, a CRC-32, index lines) open, and are rewritten once in today's layout.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { startEmulator } from '../../../emulator/index.js';
import {
  SCHEMA_VERSION,
  Store,
  StoreError,
  type Collection,
} from '../../../emulator/store/store.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-migration-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const FIXTURE = new URL('../../fixtures/snapshot-v2', import.meta.url);
const EXPECTED = JSON.parse(
  await readFile(new URL('../../fixtures/snapshot-v2.expected.json', import.meta.url), 'utf8'),
) as {
  token: string;
  collections: Record<string, Array<{ id: string; name?: string; createdAt: string }>>;
};

test('a data dir written by the layout-2 store (test/fixtures/snapshot-v2) opens with its journal, and is rewritten once', async () => {
  await cp(FIXTURE, dir, { recursive: true });
  expect(
    (await readFile(join(dir, 'snapshot.json'), 'utf8')).startsWith('{"schemaVersion":2,'),
  ).toBe(true);
  const first = await startEmulator({ dataDir: dir });
  try {
    for (const [name, records] of Object.entries(EXPECTED.collections)) {
      const collection = Object.values(emulatorInternals(first).db).find((c) => c.name === name)!;
      expect([...collection.values()], name).toEqual(records);
    }
    const page = await fetch(`${first.url}/api/plugins/marketplace?tags=fixture`, {
      headers: { authorization: EXPECTED.token },
    });
    expect(
      ((await page.json()) as { data: Array<{ name: string }> }).data.map((p) => p.name),
    ).toEqual(['epsilon', 'alpha']);
  } finally {
    await first.close();
  }
  const rewritten = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
  expect(rewritten.schemaVersion).toBe(SCHEMA_VERSION);
  expect(rewritten.collections.plugins.map((p: { name: string }) => p.name).sort()).toEqual([
    'alpha',
    'beta renamed',
    'delta',
    'epsilon',
  ]);
  expect((await readdir(dir)).filter((f) => f.startsWith('journal-'))).toEqual([
    `journal-${rewritten.generation}.jsonl`,
  ]);
  const second = await startEmulator({ dataDir: dir });
  try {
    expect([...emulatorInternals(second).db.plugins.values()]).toEqual(
      EXPECTED.collections.plugins,
    );
  } finally {
    await second.close();
  }
});

interface Thing {
  id: string;
  group: string;
}

async function open(): Promise<{ store: Store; things: Collection<Thing> }> {
  let things!: Collection<Thing>;
  const store = await Store.open({ dataDir: dir }, (s) => {
    things = s.define<Thing>('things', ['group']);
  });
  return { store, things };
}

/** A layout-2 snapshot of these lines, with its size and checksum (`crc` overrides the checksum). */
async function writeLayout2(lines: string[], crc?: number): Promise<void> {
  const body = Buffer.from(`${lines.join(',\n')}\n]}\n`);
  const head = `{"schemaVersion":2,"generation":0,"bytes":${body.length},"crc32":${crc ?? crc32(body)},"records":[\n`;
  await writeFile(join(dir, 'snapshot.json'), Buffer.concat([Buffer.from(head), body]));
}

const T1 = '["things","t1",{"id":"t1","group":"g"}]';

test('a layout-2 snapshot that was changed or cut short is refused', async () => {
  await writeLayout2([T1], 12345);
  await expect(open()).rejects.toThrow(/cannot be read: its checksum does not match/);
  await writeLayout2([T1]);
  const good = await readFile(join(dir, 'snapshot.json'), 'utf8');
  await writeFile(join(dir, 'snapshot.json'), good.replace('"g"', '"h"'));
  await expect(open()).rejects.toThrow(StoreError);
  expect(await readdir(dir)).not.toContain('emulator.lock');
});

test('collections named __proto__ or toString, in either layout, are unknown collections: skipped, no prototype changed', async () => {
  await writeLayout2([
    T1,
    '["#index","__proto__",{"before":0,"records":0,"field":"pollutedByASnapshot","postings":[]}]',
    '["__proto__","x",{"id":"x"}]',
    '["toString","y",{"id":"y"}]',
  ]);
  const a = await open();
  try {
    expect(({} as Record<string, unknown>).pollutedByASnapshot).toBeUndefined();
    expect([...a.things.values()]).toEqual([{ id: 't1', group: 'g' }]);
  } finally {
    await a.store.close();
  }
  // A snapshot of generation 0 alone (the journals of the first store do not fit it).
  for (const name of await readdir(dir)) if (name.startsWith('journal-')) await rm(join(dir, name));
  await writeFile(
    join(dir, 'snapshot.json'),
    `{"schemaVersion":${SCHEMA_VERSION},"generation":0,"collections":{"__proto__":[{"id":"x","polluted":1}],"toString":[{"id":"y"}],"things":[{"id":"t2","group":"g"}]}}`,
  );
  const b = await open();
  try {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect([...b.things.values()]).toEqual([{ id: 't2', group: 'g' }]);
  } finally {
    await b.store.close();
  }
});
