import { chmod, mkdir, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { Journal } from './journal.js';
import { fsyncPath, SnapshotError, SnapshotFile, type SnapshotData } from './snapshot-file.js';
import { ApiError, detail } from '../errors.js';

/**
 * The version of the on-disk layout; a data dir written by a newer emulator is refused.
 * 1: the snapshot is one JSON document of whole records. 2: one record per line, with a checksum
 * (see snapshot-file.ts). Version 1 snapshots are read and rewritten as version 2.
 */
export const SCHEMA_VERSION = 2;

/** Compact the journal into the snapshot once it holds this many lines or bytes. */
const COMPACT_LINES = 200_000;
const COMPACT_BYTES = 128 * 1024 * 1024;

export interface BaseRecord {
  id: string;
}

type Change = { t: 'put'; c: string; r: BaseRecord } | { t: 'del'; c: string; id: string };
/** One journal line: a change, or several that stand or fall together (see Store.atomically). */
type Mutation = Change | { t: 'all'; m: Change[] };
/** A change not yet applied, with the journal text of its record (serialized before it touches memory). */
type Pending =
  | { t: 'put'; collection: Collection<BaseRecord>; record: BaseRecord; text: string }
  | { t: 'del'; collection: Collection<BaseRecord>; id: string };

/** A refusal to open a data dir, with a message meant for the person running the emulator. */
export class StoreError extends Error {}

/**
 * How deep a record may nest. JSON.stringify recurses, and a record must survive being written
 * to the journal, the snapshot and an export (each wraps it a few levels deeper) on any stack.
 */
export const MAX_RECORD_DEPTH = 1000;

/**
 * A record the store refuses to hold because it cannot be written as JSON (too deeply nested,
 * a cycle, a BigInt): a 400, and nothing of the change it belongs to is applied.
 */
export class RecordRefused extends ApiError {
  constructor(
    readonly collection: string,
    readonly recordId: string,
    readonly reason: string,
    path: string[] = [],
  ) {
    super('VALIDATION_ERROR', `Cannot store ${collection} record ${recordId}: ${reason}`, [
      detail(path, 'unserializable', `JSON nested at most ${MAX_RECORD_DEPTH} levels deep`, undefined, reason),
    ]);
  }
}

/** The JSON text of a record, or a RecordRefused: every change is serialized before it is applied. */
export function serializeRecord(collection: string, record: BaseRecord, path: string[] = []): string {
  const id = typeof record?.id === 'string' ? record.id : String(record?.id);
  let text: string | undefined;
  try {
    text = JSON.stringify(record);
  } catch (error) {
    const message = error instanceof RangeError ? `it nests too deeply to be written as JSON (at most ${MAX_RECORD_DEPTH} levels)` : `it cannot be written as JSON (${(error as Error).message})`;
    throw new RecordRefused(collection, id, message, path);
  }
  if (typeof text !== 'string' || text[0] !== '{') throw new RecordRefused(collection, id, 'a record must be a JSON object', path);
  // Nesting n levels takes at least 2n characters: short records need no scan.
  const depth = text.length <= 2 * MAX_RECORD_DEPTH ? 0 : nestingDepth(text);
  if (depth > MAX_RECORD_DEPTH) throw new RecordRefused(collection, id, `it nests ${depth} levels deep; at most ${MAX_RECORD_DEPTH} are kept`, path);
  return text;
}

/** The deepest nesting of objects and arrays in a JSON text (a scan, no recursion). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}

/**
 * One named set of records, held in memory in insertion order, with optional secondary
 * indexes. Every change is applied in memory at once and resolves when it is durable.
 * Records loaded from the snapshot stay as their JSON text until first used (a lookup parses
 * one; a scan or an index parses them all), so that a large store opens fast.
 */
export class Collection<T extends BaseRecord> {
  private readonly records = new Map<string, T | string>();
  /** How many records are still unparsed text. */
  private unparsed = 0;
  private readonly seqs = new Map<string, number>();
  /** Declared indexes; null until first used (built then, so a large store opens fast). */
  private readonly indexes = new Map<string, Map<unknown, Posting> | null>();
  private nextSeq = 0;

  constructor(
    readonly name: string,
    private readonly store: Store,
    indexFields: string[] = [],
  ) {
    for (const field of indexFields) this.indexes.set(field, null);
  }

  /** Bumped by every change, so results computed from the records can be cached. */
  version = 0;

  get size(): number {
    return this.records.size;
  }

  get(id: string): T | undefined {
    const record = this.records.get(id);
    return typeof record === 'string' ? this.parse(id, record) : record;
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  /** Records in insertion order. */
  values(): IterableIterator<T> {
    if (this.unparsed > 0) this.parseAll();
    return this.records.values() as IterableIterator<T>;
  }

  /** Every record as [id, JSON text], for a snapshot: unparsed records are written as they were read. */
  *serialized(): IterableIterator<[string, string]> {
    for (const [id, record] of this.records) yield [id, typeof record === 'string' ? record : JSON.stringify(record)];
  }

  private parse(id: string, text: string): T {
    let record: T;
    try {
      record = JSON.parse(text) as T;
    } catch {
      // The snapshot's checksum matched when it was read, so this is a bug, not damage on disk.
      throw new StoreError(`record ${id} of ${this.name} in the snapshot is not valid JSON`);
    }
    this.records.set(id, record);
    this.unparsed--;
    return record;
  }

  private parseAll(): void {
    for (const [id, record] of this.records) if (typeof record === 'string') this.parse(id, record);
  }

  /** The insertion sequence number of a record: the tie-breaker of every sort. */
  seq(id: string): number {
    return this.seqs.get(id) ?? Number.MAX_SAFE_INTEGER;
  }

  /** The posting of an indexed `field` for `value` (for arrays: records containing it). */
  lookup(field: string, value: unknown): Posting {
    return this.index(field).get(value) ?? EMPTY;
  }

  /** The index of a declared field, built from the records on first use. */
  private index(field: string): Map<unknown, Posting> {
    let index = this.indexes.get(field);
    if (index === undefined) throw new Error(`collection ${this.name} has no index on ${field}`);
    if (index === null) {
      if (this.unparsed > 0) this.parseAll();
      index = new Map();
      // Map order is insertion order, so every posting is built in sequence order.
      for (const [id, record] of this.records) {
        const seq = this.seqs.get(id)!;
        for (const value of indexValues(record as T, field)) post(index, value, id, seq);
      }
      this.indexes.set(field, index);
    }
    return index;
  }

  hasIndex(field: string): boolean {
    return this.indexes.has(field);
  }

  /** Records whose indexed field matches, in insertion order. */
  where(field: string, value: unknown): T[] {
    const posting = this.lookup(field, value);
    const out: T[] = [];
    for (const id of posting.ids) {
      const r = this.records.get(id) as T | undefined;
      if (r) out.push(r);
    }
    if (!posting.ordered) out.sort((a, b) => this.seq(a.id) - this.seq(b.id));
    return out;
  }

  /**
   * Inserts or replaces a record; resolves once durable. The record is serialized first: one
   * that cannot be written as JSON throws a RecordRefused at once and changes nothing. Inside
   * Store.atomically the change is applied only when the whole batch is serialized.
   */
  put(record: T): Promise<void> {
    const text = serializeRecord(this.name, record);
    return this.store.submit({ t: 'put', collection: this as unknown as Collection<BaseRecord>, record, text });
  }

  /** Removes a record if present; resolves once durable. */
  delete(id: string): Promise<void> {
    return this.store.submit({ t: 'del', collection: this as unknown as Collection<BaseRecord>, id });
  }

  /** @internal adds a record from the snapshot; given as JSON text, it is parsed on first use. */
  load(id: string, record: T | string): void {
    if (typeof record !== 'string' || this.anyIndexBuilt()) {
      this.apply(typeof record === 'string' ? (JSON.parse(record) as T) : record);
      return;
    }
    this.version++;
    const stored = this.records.get(id);
    if (stored === undefined) this.seqs.set(id, this.nextSeq++);
    else if (typeof stored === 'string') this.unparsed--;
    this.records.set(id, record);
    this.unparsed++;
  }

  /** @internal applies a put without logging it (load and replay). */
  apply(record: T): void {
    this.version++;
    const stored = this.records.get(record.id);
    let previous: T | undefined;
    if (stored === undefined) this.seqs.set(record.id, this.nextSeq++);
    // An index is built only once every record is parsed, so an unparsed record is in no index.
    else if (typeof stored === 'string') this.unparsed--;
    else previous = stored;
    this.records.set(record.id, record);
    const seq = this.seqs.get(record.id)!;
    for (const [field, index] of this.indexes) {
      if (index === null) continue;
      const before = previous ? indexValues(previous, field) : [];
      const after = indexValues(record, field);
      for (const value of before) if (!after.includes(value)) unpost(index, value, record.id);
      for (const value of after) if (!before.includes(value)) post(index, value, record.id, seq);
    }
  }

  /** @internal */
  remove(id: string): void {
    const previous = this.records.get(id);
    if (previous === undefined) return;
    this.version++;
    if (typeof previous === 'string') this.unparsed--;
    else {
      for (const [field, index] of this.indexes) {
        if (index === null) continue;
        for (const value of indexValues(previous, field)) unpost(index, value, id);
      }
    }
    this.records.delete(id);
    this.seqs.delete(id);
  }

  /** @internal */
  clear(): void {
    this.version++;
    this.records.clear();
    this.seqs.clear();
    this.unparsed = 0;
    for (const field of this.indexes.keys()) this.indexes.set(field, null);
  }

  private anyIndexBuilt(): boolean {
    for (const index of this.indexes.values()) if (index !== null) return true;
    return false;
  }
}

/** The ids of the records that have one value of an indexed field. */
export interface Posting {
  readonly ids: Set<string>;
  /** False once an id was added out of insertion order (an update changed the field). */
  ordered: boolean;
  lastSeq: number;
}

function post(index: Map<unknown, Posting>, value: unknown, id: string, seq: number): void {
  let posting = index.get(value);
  if (!posting) index.set(value, (posting = { ids: new Set(), ordered: true, lastSeq: -1 }));
  posting.ids.add(id);
  if (seq < posting.lastSeq) posting.ordered = false;
  posting.lastSeq = Math.max(posting.lastSeq, seq);
}

function unpost(index: Map<unknown, Posting>, value: unknown, id: string): void {
  const posting = index.get(value);
  if (!posting) return;
  posting.ids.delete(id);
  if (posting.ids.size === 0) index.delete(value);
}

const EMPTY: Posting = { ids: new Set(), ordered: true, lastSeq: -1 };

function indexValues(record: BaseRecord, field: string): unknown[] {
  const value = (record as unknown as Record<string, unknown>)[field];
  if (Array.isArray(value)) return value;
  return value === undefined ? [] : [value];
}

export interface StoreOptions {
  /** Folder for the snapshot and journal; omitted means in memory only. */
  dataDir?: string;
  /** When the journal is compacted into the snapshot (defaults: 200,000 lines or 128 MiB); for tests. */
  compactAfter?: { lines?: number; bytes?: number };
}

/**
 * The emulator's JSON file store: a lowdb snapshot plus an append-only journal of changes
 * since it, replayed at start and compacted into a new snapshot as it grows. A lock file
 * keeps a second emulator off the same data dir.
 */
export class Store {
  private readonly collections = new Map<string, Collection<BaseRecord>>();
  private journal: Journal | null = null;
  private generation = 0;
  private compacting: Promise<void> | null = null;
  /** The compaction running or last run: compactions never overlap. */
  private compactions: Promise<void> = Promise.resolve();
  private closed = false;
  private lockKey: string | null = null;
  private readonly compactLines: number;
  private readonly compactBytes: number;

  private constructor(
    readonly dataDir: string | null,
    options: StoreOptions,
  ) {
    this.compactLines = options.compactAfter?.lines ?? COMPACT_LINES;
    this.compactBytes = options.compactAfter?.bytes ?? COMPACT_BYTES;
  }

  /** Opens (and locks) a data dir, or an in-memory store when none is given. */
  static async open(options: StoreOptions, define: (store: Store) => void): Promise<Store> {
    const store = new Store(options.dataDir ?? null, options);
    define(store);
    if (store.dataDir) await store.load(store.dataDir);
    return store;
  }

  /** Declares a collection; call before loading, from the `define` callback. */
  define<T extends BaseRecord>(name: string, indexFields: string[] = []): Collection<T> {
    const collection = new Collection<T>(name, this, indexFields);
    this.collections.set(name, collection as unknown as Collection<BaseRecord>);
    return collection;
  }

  collection<T extends BaseRecord>(name: string): Collection<T> {
    const c = this.collections.get(name);
    if (!c) throw new Error(`unknown collection ${name}`);
    return c as unknown as Collection<T>;
  }

  get persistent(): boolean {
    return this.dataDir !== null;
  }

  /** Changes made inside `atomically`, applied and written as one journal line when it ends. */
  private batch: { changes: Pending[]; done: Promise<void>; settle: (line: Promise<void>) => void } | null = null;

  /**
   * Runs `change` (synchronous: puts and deletes, not awaited inside) so that its changes reach
   * memory and the journal together, as one line: after a crash they are all there or none is.
   * The changes are collected first and applied only when `change` returns: a record that cannot
   * be serialized, or anything `change` throws, leaves memory and the journal untouched (the
   * returned promise rejects). Reads inside `change` see the state before it. Resolves once
   * durable, like each put and delete made inside it.
   */
  atomically(change: () => void): Promise<void> {
    if (this.batch) {
      change();
      return this.batch.done;
    }
    let settle!: (line: Promise<void>) => void;
    const done = new Promise<void>((resolve, reject) => (settle = (line) => line.then(resolve, reject)));
    // Callers that drop a put's promise must not meet an unhandled rejection when the store closes.
    done.catch(() => undefined);
    const batch = (this.batch = { changes: [] as Pending[], done, settle });
    try {
      change();
    } catch (error) {
      settle(Promise.reject(error));
      return Promise.reject(error);
    } finally {
      this.batch = null;
    }
    settle(this.commit(batch.changes));
    return done;
  }

  /** @internal a put or delete of a collection: applied now, or collected by the running batch. */
  submit(change: Pending): Promise<void> {
    if (this.batch) {
      this.batch.changes.push(change);
      return this.batch.done;
    }
    return this.commit([change]);
  }

  /** Applies serialized changes in memory and writes them as one journal line. */
  private commit(changes: Pending[]): Promise<void> {
    const lines: string[] = [];
    for (const change of changes) {
      if (change.t === 'put') {
        change.collection.apply(change.record);
        lines.push(`{"t":"put","c":${JSON.stringify(change.collection.name)},"r":${change.text}}`);
      } else if (change.collection.has(change.id)) {
        change.collection.remove(change.id);
        lines.push(`{"t":"del","c":${JSON.stringify(change.collection.name)},"id":${JSON.stringify(change.id)}}`);
      }
    }
    if (lines.length === 0) return Promise.resolve();
    return this.append(lines.length === 1 ? lines[0] : `{"t":"all","m":[${lines.join(',')}]}`);
  }

  /** Records one journal line (the JSON text of a Mutation). */
  private append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    if (!this.journal) return Promise.resolve();
    const done = this.journal.append(line);
    if (!this.compacting && (this.journal.lines >= this.compactLines || this.journal.size >= this.compactBytes)) {
      this.compacting = this.compact()
        // A failed compaction loses nothing: the journals it would have replaced stay.
        .catch(() => undefined)
        .finally(() => (this.compacting = null));
    }
    return done;
  }

  /**
   * Prepares replacing every collection's records (an import): every record is serialized now,
   * and a refused one throws its RecordRefused (the path names the collection and index) with
   * nothing changed. The returned function swaps memory in one step and, for a data dir, writes
   * it as a new snapshot; a crash before that leaves the store as it was before.
   */
  prepareReplace(contents: Record<string, BaseRecord[]>): () => Promise<void> {
    const prepared: Array<[Collection<BaseRecord>, BaseRecord[]]> = [];
    for (const [name, c] of this.collections) {
      const records = contents[name] ?? [];
      records.forEach((record, i) => serializeRecord(name, record, ['collections', name, String(i)]));
      prepared.push([c, records]);
    }
    return async () => {
      for (const [c, records] of prepared) {
        c.clear();
        for (const record of records) c.apply(record);
      }
      if (this.dataDir) await this.compact();
    };
  }

  /** Resolves once every acknowledged change is durable. */
  async flush(): Promise<void> {
    await this.journal?.drain();
    await this.compacting;
  }

  /** Empties every collection (durably). */
  async clear(): Promise<void> {
    for (const c of this.collections.values()) c.clear();
    if (this.dataDir) await this.compact();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    await this.compactions;
    this.closed = true;
    await this.journal?.close();
    if (this.dataDir && this.lockKey) releaseLock(this.dataDir, this.lockKey);
  }

  /** Writes the whole state as a new snapshot and starts a fresh journal. */
  compact(): Promise<void> {
    // Two compactions at once could delete the journal the other one's snapshot relies on.
    const run = this.compactions.catch(() => undefined).then(() => this.compactNow());
    this.compactions = run;
    return run;
  }

  private async compactNow(): Promise<void> {
    if (!this.dataDir || !this.journal || this.closed) return;
    const dir = this.dataDir;
    // Rotate first, so changes made while the snapshot is written land in the new journal.
    // Replaying a change the snapshot already holds is harmless: every change is a whole put
    // or delete.
    const old = this.journal;
    this.generation++;
    this.journal = await Journal.open(journalPath(dir, this.generation));
    const data: SnapshotData = { schemaVersion: SCHEMA_VERSION, generation: this.generation, collections: {} };
    for (const [name, c] of this.collections) data.collections[name] = [...c.serialized()];
    const db = new Low<SnapshotData>(new SnapshotFile(join(dir, SNAPSHOT_FILE)), data);
    await old.close();
    await db.write();
    await rm(old.path, { force: true });
    await fsyncPath(dir);
  }

  private async load(dir: string): Promise<void> {
    await ownerOnlyDir(dir);
    const lockKey = acquireLock(dir);
    this.lockKey = lockKey;
    try {
      const db = new Low<SnapshotData | null>(new SnapshotFile(join(dir, SNAPSHOT_FILE)), null);
      try {
        await db.read();
      } catch (error) {
        if (!(error instanceof SnapshotError)) throw error;
        throw new StoreError(`the snapshot ${join(dir, SNAPSHOT_FILE)} cannot be read: ${error.message}; restore it from a backup or start with an empty --data-dir`);
      }
      const snapshot = db.data;
      if (snapshot !== null) {
        if (snapshot.schemaVersion > SCHEMA_VERSION) {
          throw new StoreError(`the data dir ${dir} was written by a newer plugsmith (store version ${snapshot.schemaVersion}, this one reads ${SCHEMA_VERSION}); upgrade plugsmith or use another --data-dir`);
        }
        this.generation = snapshot.generation;
        for (const [name, records] of Object.entries(snapshot.collections)) {
          const c = this.collections.get(name);
          if (c) for (const [id, record] of records) c.load(id, record as BaseRecord | string);
        }
      }
      const journals = (await readdir(dir))
        .map((f) => /^journal-(\d+)\.jsonl$/.exec(f))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => a - b);
      let lines = 0;
      for (const gen of journals) {
        if (gen < this.generation) {
          await rm(journalPath(dir, gen), { force: true });
          continue;
        }
        lines += await this.replay(journalPath(dir, gen));
        this.generation = gen;
      }
      this.journal = await Journal.open(journalPath(dir, this.generation), lines);
      // A new data dir gets its first snapshot; a version-1 one is rewritten in today's layout.
      if (!snapshot || snapshot.schemaVersion < SCHEMA_VERSION) await this.compact();
    } catch (error) {
      await this.journal?.close().catch(() => undefined);
      this.journal = null;
      releaseLock(dir, lockKey);
      throw error;
    }
  }

  private async replay(path: string): Promise<number> {
    const text = await readFile(path, 'utf8');
    let start = 0;
    let count = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      if (end === -1) {
        // A torn final line was never acknowledged: cut it off so appends start clean.
        await truncate(path, Buffer.byteLength(text.slice(0, start)));
        break;
      }
      const line = text.slice(start, end);
      start = end + 1;
      if (line.length === 0) continue;
      let m: Mutation;
      try {
        m = JSON.parse(line);
      } catch {
        throw new StoreError(`the journal ${path} is corrupt at byte ${start - line.length - 1}; restore the data dir from a backup or start with an empty --data-dir`);
      }
      for (const change of m.t === 'all' ? m.m : [m]) {
        const c = this.collections.get(change.c);
        if (!c) continue;
        if (change.t === 'put') c.apply(change.r);
        else c.remove(change.id);
      }
      count++;
    }
    return count;
  }
}

const SNAPSHOT_FILE = 'snapshot.json';
const LOCK_FILE = 'emulator.lock';

function journalPath(dir: string, generation: number): string {
  return join(dir, `journal-${generation}.jsonl`);
}

/**
 * Data dirs this process holds. A lock file naming our own pid is only ours if it is listed
 * here: in a container an emulator restarted after a crash often gets the same pid again.
 */
const heldDirs = new Set<string>();

/** Locks a data dir for this process; returns the key to release it with. */
function acquireLock(dir: string): string {
  const key = realpathSync(dir);
  if (heldDirs.has(key)) {
    throw new StoreError(`the data dir ${dir} is already open in this process; close the other emulator first, or pass another dataDir`);
  }
  const lock = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      heldDirs.add(key);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let pid = 0;
    try {
      pid = Number(readFileSync(lock, 'utf8').trim());
    } catch {
      // removed meanwhile: try again
    }
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new StoreError(
        `the data dir ${dir} is in use by another emulator (pid ${pid}); stop it first, or pass another --data-dir (if process ${pid} is not an emulator, delete ${lock})`,
      );
    }
    // The lock of a process that died: take it over.
    try {
      unlinkSync(lock);
    } catch {
      // removed meanwhile
    }
  }
  throw new StoreError(`could not lock the data dir ${dir}; another emulator may be starting there`);
}

function releaseLock(dir: string, key: string): void {
  heldDirs.delete(key);
  try {
    unlinkSync(join(dir, LOCK_FILE));
  } catch {
    // already gone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the data dir owner-only (0700), or makes an existing one so, with the files directly
 * in it 0600 (a data dir written by an older version had 0755/0644): it holds webhook secrets,
 * installation tokens and the signing key of storage URLs. Files the store writes are created 0600.
 */
export async function ownerOnlyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder someone else owns cannot be changed; the files written in it are still 0600.
  await chmod(dir, 0o700).catch(() => undefined);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile() && (info.mode & 0o077) !== 0) await chmod(path, 0o600).catch(() => undefined);
  }
}
