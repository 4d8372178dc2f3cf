import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SCHEMA_VERSION,
  Store,
  StoreError,
  type Collection,
  type StoreOptions,
} from '../../../emulator/store/store.js';

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

const thing = (i: number, group = `g${i % 3}`, tags = [`t${i % 2}`]): Thing => ({
  id: `th_${String(i).padStart(5, '0')}`,
  n: i,
  group,
  tags,
});
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

  test('where follows indexed fields through updates and deletes, in the order records took the value', async () => {
    const { things } = await openStore({});
    for (let i = 0; i < 6; i++)
      await things.put(thing(i, i < 3 ? 'a' : 'b', i % 2 ? ['x', 'y'] : ['y']));
    expect(things.where('group', 'a').map((t) => t.n)).toEqual([0, 1, 2]);
    expect(things.where('tags', 'x').map((t) => t.n)).toEqual([1, 3, 5]);
    // th_00000 moves into group b: it joins the end there.
    await things.put({ ...thing(0), group: 'b', tags: ['x', 'x'] });
    expect(things.where('group', 'b').map((t) => t.n)).toEqual([3, 4, 5, 0]);
    expect(things.where('group', 'a').map((t) => t.n)).toEqual([1, 2]);
    // A value repeated in an array counts once.
    expect(things.where('tags', 'x').map((t) => t.n)).toEqual([1, 3, 5, 0]);
    expect(things.where('tags', 'y').map((t) => t.n)).toEqual([1, 2, 3, 4, 5]);
    await things.delete('th_00003');
    expect(things.where('tags', 'x').map((t) => t.n)).toEqual([1, 5, 0]);
    expect(things.where('group', 'b').map((t) => t.n)).toEqual([4, 5, 0]);
    expect(things.where('group', 'zzz')).toEqual([]);
    expect(() => things.where('n', 1)).toThrow(/no index on n/);
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
      puts.push(
        a.things.delete('th_00000'),
        a.things.put({ ...thing(1), n: 100 }),
        a.others.put({ id: 'o1', v: 'x' }),
      );
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
    expect(snapshot.collections.things.length).toBeGreaterThanOrEqual(250);
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
    await writeFile(
      join(dir, `journal-${gen + 1}.jsonl`),
      JSON.stringify({ t: 'put', c: 'things', r: thing(5) }) +
        '\n' +
        JSON.stringify({ t: 'del', c: 'things', id: thing(0).id }) +
        '\n',
    );
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
    await writeFile(
      join(dir, 'snapshot.json'),
      JSON.stringify({ schemaVersion: SCHEMA_VERSION + 1, generation: 0, collections: {} }),
    );
    await expect(reopen()).rejects.toThrow(StoreError);
    await expect(reopen()).rejects.toThrow(
      `newer plugsmith (store version ${SCHEMA_VERSION + 1}, this one reads ${SCHEMA_VERSION})`,
    );
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
    expect(snapshot.collections.things).toEqual([thing(1)]);
    expect((await readdir(nested)).sort()).toEqual([
      `journal-${snapshot.generation}.jsonl`,
      'snapshot.json',
    ]);
  });
});

describe('The snapshot layout', () => {
  async function snapshotText(): Promise<string> {
    return readFile(join(dir, 'snapshot.json'), 'utf8');
  }

  test('records read from the snapshot behave like any other: get, update, delete, where, order', async () => {
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

    // The journal's changes replay on top of the snapshot's records, and a compaction writes them back.
    const c = await reopen();
    await c.store.compact();
    await closeAll();
    const d = await reopen();
    expect([...d.things.values()]).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 9].map((i) =>
        i === 7 ? { ...thing(7), group: 'moved' } : thing(i),
      ),
    );
  });

  test("the snapshot is one JSON document of every collection's records, owner-only", async () => {
    const a = await reopen();
    await a.things.put(thing(1));
    await a.things.put(thing(2));
    await a.store.compact();
    const generation = JSON.parse(await snapshotText()).generation;
    // The document ends with the SHA-256 of its text before the checksum field.
    const body = JSON.stringify({
      schemaVersion: SCHEMA_VERSION,
      generation,
      collections: { things: [thing(1), thing(2)], others: [] },
    }).slice(0, -1);
    const sha256 = createHash('sha256').update(body).digest('hex');
    expect(await snapshotText()).toBe(`${body},"sha256":"${sha256}"}`);
    expect((await stat(join(dir, 'snapshot.json'))).mode & 0o777).toBe(0o600);
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
    const v1 = {
      schemaVersion: 1,
      generation: 3,
      collections: {
        things: [thing(1), thing(2)],
        others: [{ id: 'o1', v: 'one' }],
        unknown: [{ id: 'x' }],
      },
    };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(v1));
    await writeFile(
      join(dir, 'journal-3.jsonl'),
      JSON.stringify({ t: 'put', c: 'things', r: thing(3) }) + '\n',
    );
    const a = await reopen();
    expect([...a.things.values()]).toEqual([thing(1), thing(2), thing(3)]);
    expect(a.others.get('o1')?.v).toBe('one');
    const rewritten = JSON.parse(await snapshotText());
    expect(rewritten.schemaVersion).toBe(SCHEMA_VERSION);
    expect(rewritten.collections).toEqual({
      things: [thing(1), thing(2), thing(3)],
      others: [{ id: 'o1', v: 'one' }],
    });
    await closeAll();
    expect(idsOf((await reopen()).things)).toEqual([1, 2, 3].map((i) => thing(i).id));
  });

  test('a cut-off snapshot is refused when the store opens', async () => {
    const a = await reopen();
    for (let i = 0; i < 5; i++) await a.things.put(thing(i));
    await a.store.compact();
    await closeAll();
    const good = await snapshotText();

    await writeFile(join(dir, 'snapshot.json'), good.slice(0, good.length - 40));
    await expect(reopen()).rejects.toThrow(/snapshot .* cannot be read: it is not valid JSON/);
    expect(await readdir(dir)).not.toContain('emulator.lock');

    await writeFile(join(dir, 'snapshot.json'), good);
    expect((await reopen()).things.get(thing(3).id)?.n).toBe(3);
  });
});
