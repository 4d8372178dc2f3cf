import { readdir, readFile, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import type { Collection } from './collection.js';
import { ownerOnlyDir } from './data-dir.js';
import { Journal } from './journal.js';
import { acquireLock, releaseLock } from './lock.js';
import { StoreError, type BaseRecord } from './record.js';
import { fsyncPath, SnapshotError, SnapshotFile, type SnapshotData } from './snapshot-file.js';

/**
 * The version of the on-disk layout; a data dir written by a newer emulator is refused.
 * 1: the snapshot is one JSON document of whole records. 2: one record per line, with a checksum
 * (see snapshot-file.ts). Version 1 snapshots are read and rewritten as version 2.
 */
export const SCHEMA_VERSION = 2;

/** Compact the journal into the snapshot once it holds this many lines or bytes. */
const COMPACT_LINES = 200_000;
const COMPACT_BYTES = 128 * 1024 * 1024;

const SNAPSHOT_FILE = 'snapshot.json';

type Change = { t: 'put'; c: string; r: BaseRecord } | { t: 'del'; c: string; id: string };
/** One journal line: a change, or several that stand or fall together (see Store.atomically). */
type Mutation = Change | { t: 'all'; m: Change[] };

/** When the journal is compacted into the snapshot. */
export interface CompactAfter {
  lines?: number;
  bytes?: number;
}

/**
 * The durable half of a store in a data dir: a lowdb snapshot plus an append-only journal of
 * the changes since it, replayed when the dir is opened and compacted into a new snapshot as it
 * grows. It holds the dir's lock from open to close.
 */
export class Persistence {
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
    readonly dir: string,
    private readonly collections: ReadonlyMap<string, Collection<BaseRecord>>,
    compactAfter: CompactAfter = {},
  ) {
    this.compactLines = compactAfter.lines ?? COMPACT_LINES;
    this.compactBytes = compactAfter.bytes ?? COMPACT_BYTES;
  }

  /** Locks `dir` and loads its snapshot and journals into the (empty, declared) collections. */
  static async open(dir: string, collections: ReadonlyMap<string, Collection<BaseRecord>>, compactAfter?: CompactAfter): Promise<Persistence> {
    const persistence = new Persistence(dir, collections, compactAfter);
    await persistence.load();
    return persistence;
  }

  /** Records one journal line (the JSON text of a Mutation); resolves once it is on disk. */
  append(line: string): Promise<void> {
    if (this.closed || !this.journal) return Promise.reject(new Error('the store is closed'));
    const done = this.journal.append(line);
    if (!this.compacting && (this.journal.lines >= this.compactLines || this.journal.size >= this.compactBytes)) {
      this.compacting = this.compact()
        // A failed compaction loses nothing: the journals it would have replaced stay.
        .catch(() => undefined)
        .finally(() => (this.compacting = null));
    }
    return done;
  }

  /** Resolves once every appended line is durable. */
  async flush(): Promise<void> {
    await this.journal?.drain();
    await this.compacting;
  }

  /**
   * Flushes, waits for a running compaction, closes the journal and releases the lock, which it
   * always does. A compaction that failed earlier (a full disk) was reported to its caller and lost
   * nothing (its journals stay and are replayed at the next open): it is not reported again. A
   * failure of closing itself rejects, once; a second close() does nothing.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
      await this.compactions.catch(() => undefined);
      this.closed = true;
      await this.journal?.close();
    } finally {
      this.closed = true;
      if (this.lockKey) releaseLock(this.dir, this.lockKey);
      this.lockKey = null;
    }
  }

  /** Writes the collections as a new snapshot and starts a fresh journal. */
  compact(): Promise<void> {
    // Two compactions at once could delete the journal the other one's snapshot relies on.
    const run = this.compactions.catch(() => undefined).then(() => this.compactNow());
    this.compactions = run;
    return run;
  }

  private async compactNow(): Promise<void> {
    if (!this.journal || this.closed) return;
    const dir = this.dir;
    // Rotate first, so changes made while the snapshot is written land in the new journal.
    // Replaying a change the snapshot already holds is harmless: every change is a whole put
    // or delete.
    const old = this.journal;
    this.generation++;
    this.journal = await Journal.open(journalPath(dir, this.generation));
    const indexes: Record<string, Record<string, string>> = {};
    const data: SnapshotData = { schemaVersion: SCHEMA_VERSION, generation: this.generation, collections: {}, indexes };
    // In one synchronous step: the indexes describe exactly the records written.
    for (const [name, c] of this.collections) {
      data.collections[name] = [...c.serialized()];
      const persisted = c.indexesToPersist();
      if (persisted !== undefined) indexes[name] = persisted;
    }
    const db = new Low<SnapshotData>(new SnapshotFile(join(dir, SNAPSHOT_FILE)), data);
    await old.close();
    await db.write();
    await rm(old.path, { force: true });
    await fsyncPath(dir);
  }

  private async load(): Promise<void> {
    const dir = this.dir;
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
          c?.loadAll(records);
        }
        for (const [name, indexes] of Object.entries(snapshot.indexes ?? {})) {
          // Positions count the snapshot's lines: a repeated id (no writer makes one) would shift them.
          const c = this.collections.get(name);
          if (c && c.size === snapshot.collections[name]?.length) c.loadIndexes(indexes);
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

function journalPath(dir: string, generation: number): string {
  return join(dir, `journal-${generation}.jsonl`);
}
