import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { SCHEMA_VERSION, Store, StoreError, type Collection, type StoreOptions } from '../../../emulator/store/store.js';
import { parseQuery, runQuery, type QuerySpec } from '../../../emulator/store/query.js';

interface Thing {
  id: string;
  n: number;
  group: string;
  tags: string[];
}

interface Opened {
  store: Store;
  things: Collection<Thing>;
  others: Collection<{ id: string; v: string }>;
}

async function openStore(options: StoreOptions): Promise<Opened> {
  let things!: Collection<Thing>;
  let others!: Collection<{ id: string; v: string }>;
  const store = await Store.open(options, (s) => {
    things = s.define<Thing>('things', ['group', 'tags']);
    others = s.define('others');
  });
  return { store, things, others };
}

const THING_QUERY: QuerySpec = { fields: { createdAt: 'string', n: 'number', group: 'string', tags: 'array' }, search: [] };
const thing = (i: number, group = `g${i % 3}`, tags = [`t${i % 2}`]): Thing => ({ id: `th_${String(i).padStart(5, '0')}`, n: i, group, tags });
const idsOf = (c: Collection<{ id: string }>) => [...c.values()].map((r) => r.id);

let dir: string;
const open: Store[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-store-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});
async function reopen(options: Omit<StoreOptions, 'dataDir'> = {}): Promise<Opened> {
  const o = await openStore({ dataDir: dir, ...options });
  open.push(o.store);
  return o;
}
async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((s) => s.close()));
}
async function journals(): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.startsWith('journal-')).sort();
}

describe('Collection in memory', () => {
  test('put, get, has, values in insertion order, delete, size', async () => {
    const { things } = await openStore({});
    await things.put(thing(2));
    await things.put(thing(1));
    await things.put(thing(3));
    expect(idsOf(things)).toEqual(['th_00002', 'th_00001', 'th_00003']);
    // An update keeps the record's place.
    await things.put({ ...thing(2), n: 99 });
    expect(idsOf(things)).toEqual(['th_00002', 'th_00001', 'th_00003']);
    expect(things.get('th_00002')?.n).toBe(99);
    expect(things.has('th_00001')).toBe(true);
    await things.delete('th_00001');
    await things.delete('th_nope');
    expect(things.has('th_00001')).toBe(false);
    expect(things.get('th_00001')).toBeUndefined();
    expect(things.size).toBe(2);
    // Put again after a delete: a new record, at the end.
    await things.put(thing(1));
    expect(idsOf(things)).toEqual(['th_00002', 'th_00003', 'th_00001']);
  });

  test('where follows indexed fields through updates and deletes, in insertion order', async () => {
    const { things } = await openStore({});
    for (let i = 0; i < 6; i++) await things.put(thing(i, i < 3 ? 'a' : 'b', i % 2 ? ['x', 'y'] : ['y']));
    expect(things.where('group', 'a').map((t) => t.n)).toEqual([0, 1, 2]);
    expect(things.where('tags', 'x').map((t) => t.n)).toEqual([1, 3, 5]);
    // th_00000 moves into group b: it comes first there, by insertion order.
    await things.put({ ...thing(0), group: 'b', tags: ['x'] });
    expect(things.where('group', 'b').map((t) => t.n)).toEqual([0, 3, 4, 5]);
    expect(things.where('group', 'a').map((t) => t.n)).toEqual([1, 2]);
    expect(things.where('tags', 'x').map((t) => t.n)).toEqual([0, 1, 3, 5]);
    expect(things.where('tags', 'y').map((t) => t.n)).toEqual([1, 2, 3, 4, 5]);
    await things.delete('th_00003');
    expect(things.where('tags', 'x').map((t) => t.n)).toEqual([0, 1, 5]);
    expect(things.where('group', 'zzz')).toEqual([]);
    expect(things.lookup('group', 'b').ids.has('th_00003')).toBe(false);
    expect(() => things.where('n', 1)).toThrow(/no index on n/);
  });

  test('indexes built together over existing records: a repeated array value counts once, later records and moves keep the order', async () => {
    const { things } = await openStore({});
    for (let i = 0; i < 5; i++) await things.put(thing(i, i % 2 ? 'odd' : 'even', i === 2 ? ['x', 'x', 'y'] : ['x']));
    const built = things.buildIndexes(['group', 'tags', 'group']);
    expect([...built.keys()].sort()).toEqual(['group', 'tags']);
    expect(things.lookup('tags', 'x').ids.size).toBe(5);
    expect([...things.lookup('tags', 'x').ids]).toEqual(['th_00000', 'th_00001', 'th_00002', 'th_00003', 'th_00004']);
    expect(things.lookup('tags', 'x').ordered).toBe(true);
    // A new record comes after the rest; an older one that moves into a posting makes it unordered.
    await things.put(thing(5, 'even', ['x', 'x']));
    expect(things.lookup('tags', 'x').ids.size).toBe(6);
    expect(things.lookup('group', 'even').ordered).toBe(true);
    await things.put(thing(1, 'even', ['x']));
    expect(things.where('group', 'even').map((t) => t.n)).toEqual([0, 1, 2, 4, 5]);
    expect(things.where('group', 'odd').map((t) => t.n)).toEqual([3]);
    await things.delete('th_00002');
    expect([...things.lookup('tags', 'x').ids]).toEqual(['th_00000', 'th_00001', 'th_00003', 'th_00004', 'th_00005']);
    expect(things.lookup('tags', 'y').ids.size).toBe(0);
    expect(() => things.buildIndexes(['n'])).toThrow(/no index on n/);
  });

  test('an in-memory store writes nothing and clears', async () => {
    const { store, things } = await openStore({});
    expect(store.persistent).toBe(false);
    await things.put(thing(1));
    await store.clear();
    expect(things.size).toBe(0);
    expect(things.where('group', 'g1')).toEqual([]);
    await store.close();
    await expect(things.put(thing(2))).rejects.toThrow(/closed/);
  });
});

describe('Store on a data dir', () => {
  test('N records survive close and reopen, in insertion order, with updates, deletes and indexes', async () => {
    const a = await reopen();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 1000; i++) writes.push(a.things.put(thing((i * 37) % 1000)));
    for (let i = 0; i < 20; i++) writes.push(a.others.put({ id: `o${i}`, v: 'x'.repeat(i) }));
    await Promise.all(writes);
    await a.things.put({ ...thing(37), group: 'moved', tags: ['é', 'ünïcode "quoted"\n'] });
    await a.things.delete(thing(74).id);
    const expected = idsOf(a.things);
    const records = [...a.things.values()];
    await closeAll();

    const b = await reopen();
    expect(idsOf(b.things)).toEqual(expected);
    expect([...b.things.values()]).toEqual(records);
    expect(b.things.size).toBe(999);
    expect(b.things.get(thing(37).id)?.tags).toEqual(['é', 'ünïcode "quoted"\n']);
    expect(b.things.where('group', 'moved').map((t) => t.id)).toEqual([thing(37).id]);
    expect(b.things.where('tags', 't1')).toHaveLength(499);
    expect(b.others.size).toBe(20);
  });

  test('writes not awaited before close are durable after it', async () => {
    const a = await reopen();
    for (let i = 0; i < 100; i++) void a.things.put(thing(i));
    await closeAll();
    expect((await reopen()).things.size).toBe(100);
  });

  test('a torn last journal line is dropped on load and later appends start clean', async () => {
    const a = await reopen();
    for (let i = 0; i < 10; i++) await a.things.put(thing(i));
    await closeAll();
    const [journal] = await journals();
    await appendFile(join(dir, journal), '{"t":"put","c":"things","r":{"id":"th_torn","n":1');

    const b = await reopen();
    expect(b.things.size).toBe(10);
    expect(b.things.has('th_torn')).toBe(false);
    expect((await readFile(join(dir, journal), 'utf8')).endsWith('\n')).toBe(true);
    await b.things.put(thing(10));
    await closeAll();

    const c = await reopen();
    expect(idsOf(c.things)).toEqual(Array.from({ length: 11 }, (_, i) => thing(i).id));
  });

  test('atomically: the changes go to the journal as one line, replayed whole, or not at all when that line is torn', async () => {
    const a = await reopen();
    for (let i = 0; i < 3; i++) await a.things.put(thing(i));
    const [journal] = await journals();
    const before = await readFile(join(dir, journal), 'utf8');
    const puts: Array<Promise<void>> = [];
    await a.store.atomically(() => {
      puts.push(a.things.delete('th_00000'), a.things.put({ ...thing(1), n: 100 }), a.others.put({ id: 'o1', v: 'x' }));
    });
    await Promise.all(puts); // each change's own promise settles with the line
    const added = (await readFile(join(dir, journal), 'utf8')).slice(before.length);
    expect(added.split('\n').filter(Boolean)).toHaveLength(1);
    await closeAll();

    const whole = await reopen();
    expect(idsOf(whole.things)).toEqual(['th_00001', 'th_00002']);
    expect(whole.things.get('th_00001')!.n).toBe(100);
    expect(whole.others.get('o1')).toEqual({ id: 'o1', v: 'x' });
    await closeAll();

    // The same line cut short (a crash mid-write): none of its three changes is replayed.
    await writeFile(join(dir, journal), before + added.slice(0, added.length - 12));
    const torn = await reopen();
    expect(idsOf(torn.things)).toEqual(['th_00000', 'th_00001', 'th_00002']);
    expect(torn.things.get('th_00001')!.n).toBe(1);
    expect(torn.others.has('o1')).toBe(false);
  });

  test('a torn line with multi-byte characters is cut at the right byte', async () => {
    const a = await reopen();
    await a.things.put({ ...thing(1), tags: ['ééé', '😀'] });
    await closeAll();
    const [journal] = await journals();
    await appendFile(join(dir, journal), '{"t":"put","c":"things","r":{"id":"ü😀');
    const b = await reopen();
    await b.things.put({ ...thing(2), tags: ['ü'] });
    await closeAll();
    const c = await reopen();
    expect([...c.things.values()].map((t) => t.tags)).toEqual([['ééé', '😀'], ['ü']]);
  });

  test('a corrupt line inside the journal is refused with a clear message', async () => {
    const a = await reopen();
    await a.things.put(thing(1));
    await closeAll();
    const [journal] = await journals();
    await appendFile(join(dir, journal), 'not json\n{"t":"del","c":"things","id":"th_00001"}\n');
    await expect(reopen()).rejects.toThrow(StoreError);
    await expect(reopen()).rejects.toThrow(/journal .* is corrupt/);
  });

  test('compaction on thresholds keeps everything and removes the old journals', async () => {
    const a = await reopen({ compactAfter: { lines: 50 } });
    for (let i = 0; i < 300; i++) await a.things.put(thing(i));
    await a.store.flush();
    const files = await journals();
    expect(files).toHaveLength(1);
    const snapshot = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
    expect(snapshot.schemaVersion).toBe(SCHEMA_VERSION);
    expect(snapshot.records.filter(([c]: [string]) => c === 'things').length).toBeGreaterThanOrEqual(250);
    expect(files[0]).toBe(`journal-${snapshot.generation}.jsonl`);
    await closeAll();
    const b = await reopen();
    expect(idsOf(b.things)).toEqual(Array.from({ length: 300 }, (_, i) => thing(i).id));
  });

  test('compact() called directly, even several at once amid writes, loses nothing', async () => {
    const a = await reopen();
    const work: Promise<void>[] = [];
    for (let i = 0; i < 400; i++) {
      work.push(a.things.put(thing(i)));
      if (i % 50 === 0) work.push(a.store.compact());
      if (i % 7 === 0 && i > 0) work.push(a.things.delete(thing(i - 1).id));
    }
    await Promise.all(work);
    const expected = idsOf(a.things);
    expect(await journals()).toHaveLength(1);
    await closeAll();
    const b = await reopen();
    expect(idsOf(b.things)).toEqual(expected);
  });

  test('a crash after the journal rotated but before the snapshot was rewritten replays both journals', async () => {
    const a = await reopen();
    for (let i = 0; i < 5; i++) await a.things.put(thing(i));
    await closeAll();
    // Simulate: a newer journal exists next to the current one (snapshot still the old generation).
    const [journal] = await journals();
    const gen = Number(/journal-(\d+)/.exec(journal)![1]);
    await writeFile(join(dir, `journal-${gen + 1}.jsonl`), JSON.stringify({ t: 'put', c: 'things', r: thing(5) }) + '\n' + JSON.stringify({ t: 'del', c: 'things', id: thing(0).id }) + '\n');
    const b = await reopen();
    expect(idsOf(b.things)).toEqual([1, 2, 3, 4, 5].map((i) => thing(i).id));
    await b.things.put(thing(6));
    await closeAll();
    expect(idsOf((await reopen()).things)).toEqual([1, 2, 3, 4, 5, 6].map((i) => thing(i).id));
  });

  test('clear() empties the data dir durably', async () => {
    const a = await reopen();
    for (let i = 0; i < 5; i++) await a.things.put(thing(i));
    await a.store.clear();
    await a.things.put(thing(9));
    await closeAll();
    expect(idsOf((await reopen()).things)).toEqual([thing(9).id]);
  });

  test('a second open of the same data dir is refused while the first is open, and allowed after close', async () => {
    const a = await reopen();
    await a.things.put(thing(1));
    const second = openStore({ dataDir: dir });
    await expect(second).rejects.toThrow(StoreError);
    await expect(openStore({ dataDir: dir })).rejects.toThrow(/already open in this process/);
    // The refused open did not take the first one's lock away.
    await expect(openStore({ dataDir: dir })).rejects.toThrow(StoreError);
    await a.things.put(thing(2));
    await closeAll();
    expect((await reopen()).things.size).toBe(2);
  });

  test('a stale lock (dead pid, or our own pid left by an earlier run) is taken over', async () => {
    await closeAll();
    await writeFile(join(dir, 'emulator.lock'), '999999999');
    (await reopen()).things;
    await closeAll();
    // In a container an emulator restarted after a crash often has the same pid again.
    await writeFile(join(dir, 'emulator.lock'), String(process.pid));
    const b = await reopen();
    expect(b.store.persistent).toBe(true);
    await closeAll();
    await writeFile(join(dir, 'emulator.lock'), '');
    await reopen();
  });

  test('a snapshot with a newer schema version is refused', async () => {
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify({ schemaVersion: SCHEMA_VERSION + 1, generation: 0, collections: {} }));
    await expect(reopen()).rejects.toThrow(StoreError);
    await expect(reopen()).rejects.toThrow(`newer plugsmith (store version ${SCHEMA_VERSION + 1}, this one reads ${SCHEMA_VERSION})`);
    // A refused open leaves no lock behind.
    expect(await readdir(dir)).not.toContain('emulator.lock');
  });

  test('a snapshot that is not a store snapshot, or not JSON, is refused', async () => {
    await writeFile(join(dir, 'snapshot.json'), '[1, 2]');
    await expect(reopen()).rejects.toThrow(/not a plugsmith store snapshot/);
    await writeFile(join(dir, 'snapshot.json'), '{"schemaVersion": 1, "coll');
    await expect(reopen()).rejects.toThrow(/not valid JSON/);
  });

  test('the data dir is created, records its schema version, and holds no temporary files', async () => {
    const nested = join(dir, 'a', 'b');
    const s = await openStore({ dataDir: nested });
    await s.things.put(thing(1));
    await s.store.compact();
    await s.store.close();
    const snapshot = JSON.parse(await readFile(join(nested, 'snapshot.json'), 'utf8'));
    expect(snapshot).toMatchObject({ schemaVersion: SCHEMA_VERSION });
    expect(snapshot.records.filter(([c]: [string]) => c !== '#index')).toEqual([['things', thing(1).id, thing(1)]]);
    expect((await readdir(nested)).sort()).toEqual([`journal-${snapshot.generation}.jsonl`, 'snapshot.json']);
  });
});

describe('The snapshot layout', () => {
  async function snapshotText(): Promise<string> {
    return readFile(join(dir, 'snapshot.json'), 'utf8');
  }

  test('records read from the snapshot (parsed on first use) behave like any other: get, update, delete, where, order', async () => {
    const a = await reopen();
    for (let i = 0; i < 10; i++) await a.things.put(thing(i));
    await a.others.put({ id: 'o1', v: 'one' });
    await a.store.compact();
    await closeAll();

    const b = await reopen();
    expect(b.things.size).toBe(10);
    expect(b.things.get(thing(4).id)).toEqual(thing(4));
    expect(b.others.get('o1')).toEqual({ id: 'o1', v: 'one' });
    // An update of a record never read keeps its place; a delete removes it.
    await b.things.put({ ...thing(7), group: 'moved' });
    await b.things.delete(thing(8).id);
    expect(b.things.where('group', 'moved').map((t) => t.n)).toEqual([7]);
    expect(b.things.where('group', 'g1').map((t) => t.n)).toEqual([1, 4]);
    expect(idsOf(b.things)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 9].map((i) => thing(i).id));
    await closeAll();

    // The journal's changes replay on top of records still unparsed, and a compaction of unparsed
    // records writes them back unchanged.
    const c = await reopen();
    await c.store.compact();
    await closeAll();
    const d = await reopen();
    expect([...d.things.values()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 9].map((i) => (i === 7 ? { ...thing(7), group: 'moved' } : thing(i))));
  });

  test('the snapshot is one JSON document with a line per record', async () => {
    const a = await reopen();
    await a.things.put(thing(1));
    await a.things.put(thing(2));
    await a.store.compact();
    const lines = (await snapshotText()).split('\n');
    expect(lines[0]).toMatch(/^\{"schemaVersion":2,"generation":\d+,"bytes":\d+,"crc32":\d+,"records":\[$/);
    // After a collection's records, a line per index: each value with its records' positions (the
    // first, then the gaps), and the checksum of the body before the line.
    const before = (n: number) => crc32(Buffer.from(`${lines.slice(1, n).join('\n')}\n`));
    expect(lines.slice(1)).toEqual([
      `["things","th_00001",${JSON.stringify(thing(1))}],`,
      `["things","th_00002",${JSON.stringify(thing(2))}],`,
      `["#index","things",{"before":${before(3)},"records":2,"field":"group","postings":[["g1",[0]],["g2",[1]]]}],`,
      `["#index","things",{"before":${before(4)},"records":2,"field":"tags","postings":[["t1",[0]],["t0",[1]]]}]`,
      ']}',
      '',
    ]);
  });

  test('ids with quotes, backslashes, tabs, newlines and non-ASCII characters survive a reopen', async () => {
    const ids = ['th_"quoted"', 'th_back\\slash', 'th_tab\tnew\nline', 'th_é😀', 'th_plain'];
    const a = await reopen();
    for (const [n, id] of ids.entries()) await a.things.put({ ...thing(n), id, group: id });
    await a.store.compact();
    await closeAll();
    const b = await reopen();
    expect(idsOf(b.things)).toEqual(ids);
    for (const id of ids) expect(b.things.get(id)?.group).toBe(id);
  });

  test('a version-1 snapshot is read, with its journal, and rewritten in the current layout', async () => {
    const v1 = { schemaVersion: 1, generation: 3, collections: { things: [thing(1), thing(2)], others: [{ id: 'o1', v: 'one' }], unknown: [{ id: 'x' }] } };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(v1));
    await writeFile(join(dir, 'journal-3.jsonl'), JSON.stringify({ t: 'put', c: 'things', r: thing(3) }) + '\n');
    const a = await reopen();
    expect([...a.things.values()]).toEqual([thing(1), thing(2), thing(3)]);
    expect(a.others.get('o1')?.v).toBe('one');
    const rewritten = JSON.parse(await snapshotText());
    expect(rewritten.schemaVersion).toBe(SCHEMA_VERSION);
    expect(rewritten.records.map(([c, id]: [string, string]) => `${c}/${id}`)).toEqual(['things/th_00001', 'things/th_00002', 'things/th_00003', '#index/things', '#index/things', 'others/o1']);
    await closeAll();
    expect(idsOf((await reopen()).things)).toEqual([1, 2, 3].map((i) => thing(i).id));
  });

  /** Edits a snapshot's body and writes it with its size and checksum made to fit again (as a tool that rewrites it would). */
  async function rewriteSnapshot(edit: (body: string) => string): Promise<void> {
    const text = await snapshotText();
    const newline = text.indexOf('\n');
    const body = Buffer.from(edit(text.slice(newline + 1)));
    const head = text.slice(0, newline).replace(/"bytes":\d+,"crc32":\d+/, `"bytes":${body.length},"crc32":${crc32(body)}`);
    await writeFile(join(dir, 'snapshot.json'), Buffer.concat([Buffer.from(`${head}\n`), body]));
  }

  const query = (c: Collection<Thing>, raw: Record<string, string>) => runQuery(c, parseQuery(raw, THING_QUERY), THING_QUERY);

  async function fourHundredThings(): Promise<void> {
    const a = await reopen();
    await a.store.atomically(() => {
      for (let i = 0; i < 400; i++) void a.things.put(thing(i));
    });
    await a.store.compact();
    await closeAll();
  }

  test("a query after a reopen reads the snapshot's indexes and parses only the records it returns", async () => {
    await fourHundredThings();
    const b = await reopen();
    expect(b.things.unparsedRecords).toBe(400);
    const page = query(b.things, { group: 'g1', tags: 't0', '@limit': '5', '@page': '2' });
    // g1 and t0: i = 4, 10, 16, … (i % 3 = 1, i % 2 = 0), newest first.
    expect(page.data.map((t) => t.n)).toEqual([364, 358, 352, 346, 340]);
    expect(page.pagination).toMatchObject({ total: 66, totalPages: 14 });
    expect(b.things.unparsedRecords).toBe(395);
    expect(b.things.where('group', 'g2').length).toBe(133);
  });

  test('changes after the snapshot (the journal, then new ones) keep the indexes read from it right', async () => {
    await fourHundredThings();
    const b = await reopen();
    // Records never parsed change their indexed fields, are deleted, and new ones arrive.
    await b.things.put({ ...thing(4), group: 'g2', tags: ['t9'] });
    await b.things.delete(thing(10).id);
    await b.things.put(thing(400));
    await closeAll();
    const c = await reopen();
    expect(query(c.things, { group: 'g1', tags: 't0', '@limit': '3' }).data.map((t) => t.n)).toEqual([400, 394, 388]);
    expect(query(c.things, { group: 'g1', tags: 't0', '@limit': '100', '@sortOrder': 'asc' }).data.map((t) => t.n).slice(0, 3)).toEqual([16, 22, 28]);
    expect(c.things.where('tags', 't9').map((t) => t.n)).toEqual([4]);
    await c.things.put({ ...thing(16), tags: ['t1'] });
    expect(query(c.things, { group: 'g1', tags: 't0', '@limit': '1', '@sortOrder': 'asc' }).data.map((t) => t.n)).toEqual([22]);
    // A compaction writes the indexes as they now are.
    await c.store.compact();
    await closeAll();
    const d = await reopen();
    expect(query(d.things, { group: 'g1', tags: 't0', '@limit': '1', '@sortOrder': 'asc' }).data.map((t) => t.n)).toEqual([22]);
    expect(query(d.things, { tags: 't9' }).data.map((t) => t.n)).toEqual([4]);
    expect(d.things.unparsedRecords).toBe(398);
  });

  test('after a delete, a record of the snapshot moved into a posting keeps its own sequence number', async () => {
    const a = await reopen();
    await a.store.atomically(() => {
      for (let i = 0; i < 400; i++) void a.things.put(thing(i, i < 10 ? 'rare' : `g${i % 3}`));
    });
    await a.store.compact();
    await closeAll();
    const b = await reopen();
    // Positions shift after a delete: th_00350 is still the 351st record, and has t0, not t1.
    await b.things.delete(thing(12).id);
    await b.things.put(thing(350, 'rare'));
    expect(query(b.things, { group: 'rare', tags: 't1' }).data.map((t) => t.n)).toEqual([9, 7, 5, 3, 1]);
    expect(query(b.things, { group: 'rare', tags: 't0' }).data.map((t) => t.n)).toEqual([350, 8, 6, 4, 2, 0]);
  });

  test('an index line that does not fit its records is not used: the index is built from the records', async () => {
    await fourHundredThings();
    const truth = [...Array(400).keys()].filter((i) => i % 3 === 1 && i !== 7).reverse().slice(0, 5);
    // A record changed by hand (its index line's checksum no longer matches what precedes it),
    // positions out of range or out of order, a wrong record count: each is ignored.
    const edits: Array<(body: string) => string> = [
      (body) => body.replace(`${JSON.stringify(thing(7))}`, JSON.stringify({ ...thing(7), group: 'g0' })),
      (body) => body.replace('["g1",[1,', '["g1",[400,'),
      (body) => body.replace('["g1",[1,3,', '["g1",[3,0,'),
      (body) => body.replace(/"records":400,"field":"group"/, '"records":399,"field":"group"'),
    ];
    const good = await snapshotText();
    for (const [i, edit] of edits.entries()) {
      await writeFile(join(dir, 'snapshot.json'), good);
      await rewriteSnapshot(edit);
      expect(await snapshotText()).not.toBe(good);
      const b = await reopen();
      const g1 = query(b.things, { group: 'g1', '@limit': '5' }).data.map((t) => t.n);
      expect(g1, `edit ${i}`).toEqual(i === 0 ? truth : [...Array(400).keys()].filter((n) => n % 3 === 1).reverse().slice(0, 5));
      expect(b.things.where('group', 'g1').length, `edit ${i}`).toBe(i === 0 ? 132 : 133);
      await closeAll();
    }
  });

  test('a snapshot whose record lines repeat an id is not read with its index lines, even when their checksums fit', async () => {
    await fourHundredThings();
    // A second line for th_00001 (the last text wins, the first place stays), index lines made to fit the new body.
    await rewriteSnapshot((body) => {
      const lines = body.split('\n');
      const at = lines.findIndex((line) => line.startsWith('["things","th_00001"'));
      lines.splice(at + 1, 0, `["things","th_00001",${JSON.stringify(thing(1, 'g2'))}],`);
      let before = 0;
      return lines
        .map((line) => {
          const fitted = line.startsWith('["#index"') ? line.replace(/"before":\d+,"records":400/, `"before":${before},"records":401`) : line;
          before = crc32(Buffer.from(`${fitted}\n`), before);
          return fitted;
        })
        .join('\n');
    });
    const b = await reopen();
    expect(b.things.size).toBe(400);
    expect(query(b.things, { group: 'g2', '@limit': '2', '@sortOrder': 'asc' }).data.map((t) => t.n)).toEqual([1, 2]);
    expect(query(b.things, { group: 'g1', '@limit': '2', '@sortOrder': 'asc' }).data.map((t) => t.n)).toEqual([4, 7]);
  });

  test('a snapshot without index lines (an older emulator wrote it) is read, and its next compaction adds them', async () => {
    await fourHundredThings();
    await rewriteSnapshot((body) => {
      const records = body.split('\n').filter((line) => line.startsWith('["things"'));
      return `${records.map((line) => line.replace(/,$/, '')).join(',\n')}\n]}\n`;
    });
    expect(await snapshotText()).not.toContain('#index');
    const b = await reopen();
    expect(query(b.things, { group: 'g1', '@limit': '2' }).data.map((t) => t.n)).toEqual([397, 394]);
    expect(b.things.unparsedRecords).toBe(0);
    await b.store.compact();
    await closeAll();
    expect(await snapshotText()).toContain('["#index","things",');
    const c = await reopen();
    expect(query(c.things, { group: 'g1', '@limit': '2' }).data.map((t) => t.n)).toEqual([397, 394]);
    expect(c.things.unparsedRecords).toBe(398);
  });

  test('a damaged snapshot is refused when the store opens: a changed byte, a cut-off end', async () => {
    const a = await reopen();
    for (let i = 0; i < 5; i++) await a.things.put(thing(i));
    await a.store.compact();
    await closeAll();
    const good = await snapshotText();

    await writeFile(join(dir, 'snapshot.json'), good.replace('"n":3', '"n":8'));
    await expect(reopen()).rejects.toThrow(/snapshot .* cannot be read: its checksum does not match/);
    expect(await readdir(dir)).not.toContain('emulator.lock');

    await writeFile(join(dir, 'snapshot.json'), good.slice(0, good.length - 40));
    await expect(reopen()).rejects.toThrow(/cut short or edited/);

    await writeFile(join(dir, 'snapshot.json'), good);
    expect((await reopen()).things.get(thing(3).id)?.n).toBe(3);
  });
});
