import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Store, StoreError, type Collection } from '../../../emulator/store/store.js';

interface Thing {
  id: string;
  group: string;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-snapshot-proto-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<{ store: Store; things: Collection<Thing> }> {
  let things!: Collection<Thing>;
  const store = await Store.open({ dataDir: dir }, (s) => {
    things = s.define<Thing>('things', ['group']);
  });
  return { store, things };
}

/** Inserts a line before the snapshot's closing line and fixes its size and checksum (as a tool that rewrites it would); `line` gets the checksum of the body before it. */
async function addLine(line: (before: number) => string): Promise<void> {
  const text = await readFile(join(dir, 'snapshot.json'), 'utf8');
  const newline = text.indexOf('\n');
  const body = text.slice(newline + 1);
  const close = body.lastIndexOf('\n]}\n');
  const upTo = `${body.slice(0, close)},\n`;
  const edited = Buffer.from(`${upTo}${line(crc32(Buffer.from(upTo)))}${body.slice(close)}`);
  const head = text.slice(0, newline).replace(/"bytes":\d+,"crc32":\d+/, `"bytes":${edited.length},"crc32":${crc32(edited)}`);
  await writeFile(join(dir, 'snapshot.json'), Buffer.concat([Buffer.from(`${head}\n`), edited]));
}

test("an index line of a collection named __proto__ changes no object's prototype", async () => {
  const a = await open();
  await a.things.put({ id: 't1', group: 'g' });
  await a.store.compact();
  await a.store.close();
  await addLine((before) => `["#index","__proto__",{"before":${before},"records":0,"field":"pollutedByASnapshot","postings":[]}]`);
  const b = await open();
  try {
    expect(({} as Record<string, unknown>).pollutedByASnapshot).toBeUndefined();
    expect(b.things.get('t1')).toEqual({ id: 't1', group: 'g' });
  } finally {
    delete (Object.prototype as Record<string, unknown>).pollutedByASnapshot;
    await b.store.close();
  }
});

test('a record line of a collection named __proto__ or toString is an unknown collection, not a crash', async () => {
  const a = await open();
  await a.things.put({ id: 't1', group: 'g' });
  await a.store.compact();
  await a.store.close();
  await addLine(() => '["__proto__","x",{"id":"x"}],\n["toString","y",{"id":"y"}]');
  let b: Awaited<ReturnType<typeof open>> | undefined;
  try {
    b = await open();
  } catch (error) {
    // Refusing the file is fine; a TypeError from inside the reader is not.
    expect(error).toBeInstanceOf(StoreError);
    return;
  } finally {
    await b?.store.close();
  }
  expect(b.things.get('t1')).toEqual({ id: 't1', group: 'g' });
});
