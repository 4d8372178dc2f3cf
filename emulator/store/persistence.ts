import { readdir, readFile, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Collection } from './collection.js';
import { ownerOnlyDir } from './data-dir.js';
import { Journal } from './journal.js';
import { acquireLock, releaseLock } from './lock.js';
import { pauseAt } from './pause.js';
import { StoreClosed, StoreError, type BaseRecord } from './record.js';
import {
  isSnapshotTemporary,
  readSnapshot,
  recordProblem,
  SCHEMA_VERSION,
  SnapshotError,
  writeSnapshot,
  type Snapshot,
} from './snapshot.js';

/** Compact the journal into the snapshot once it holds this many lines or bytes. */
const COMPACT_LINES = 200_000;
const COMPACT_BYTES = 128 * 1024 * 1024;

const SNAPSHOT_FILE = 'snapshot.json';

type Change = { t: 'put'; c: string; r: BaseRecord } | { t: 'del'; c: string; id: string };
/** One journal line: a change, an atomic batch of them, or the whole contents (an import or a clear). */
type Mutation =
  | Change
  | { t: 'all'; m: Change[] }
  | { t: 'replace'; collections: Record<string, BaseRecord[]> };

/** When the journal is compacted into the snapshot. */
export interface CompactAfter {
  lines?: number;
  bytes?: number;
}

/** The durable half of a store: snapshot plus journal (replayed at open, compacted as it grows); holds the dir's lock until closed. */
export class Persistence {
  private journal: Journal | null = null;
  private generation = 0;
  private compacting: Promise<void> | null = null;
  /** The compaction running or last run: compactions never overlap. */
  private compactions: Promise<void> = Promise.resolve();
  private closed = false;
  private lockKey: string | null = null;

  private constructor(
    readonly dir: string,
    private readonly collections: ReadonlyMap<string, Collection<BaseRecord>>,
    private readonly compactAfter: CompactAfter = {},
  ) {}

  /** Locks `dir` and loads its snapshot and journals into the (empty, declared) collections. */
  static async open(
    dir: string,
    collections: ReadonlyMap<string, Collection<BaseRecord>>,
    compactAfter?: CompactAfter,
  ): Promise<Persistence> {
    const persistence = new Persistence(dir, collections, compactAfter);
    await persistence.load();
    return persistence;
  }

  /**
   * Records one journal line (the JSON text of a Mutation, already applied in memory); resolves once it is on disk. When it
   * cannot be written, `undo` takes the change back out of memory (with every later line) before the promise rejects.
   */
  append(line: string, undo?: () => void): Promise<void> {
    if (this.closed || !this.journal) {
      undo?.();
      return Promise.reject(new StoreClosed());
    }
    const done = this.journal.append(line, undo);
    const { lines = COMPACT_LINES, bytes = COMPACT_BYTES } = this.compactAfter;
    if (this.journal.lines >= lines || this.journal.size >= bytes) this.compactSoon();
    return done;
  }

  /** Starts a compaction unless one is running; `flush()` waits for it. */
  compactSoon(): void {
    if (this.compacting || this.closed) return;
    this.compacting = this.compact()
      // A failed compaction loses nothing: the journals it would have replaced stay.
      .catch(() => undefined)
      .finally(() => (this.compacting = null));
  }

  /** Resolves once every appended line is durable. */
  async flush(): Promise<void> {
    await this.journal?.drain();
    await this.compacting;
  }

  /** Flushes, closes the journal and always releases the lock; an earlier failed compaction lost nothing and is not reported again. */
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

  /**
   * Rotates the journal, snapshots that moment, deletes the old journal: a crash before the rename keeps both journals.
   * The snapshot is taken once the old journal has nothing in flight, so it never holds a change whose write then failed.
   */
  private async compactNow(): Promise<void> {
    if (!this.journal || this.closed) return;
    const old = this.journal;
    const generation = this.generation + 1;
    const next = await Journal.open(journalPath(this.dir, generation));
    while (!old.idle) await old.drain();
    // From here to the switch nothing awaits: every change in memory is durable in the old journal, every later one goes to the new.
    this.generation = generation;
    this.journal = next;
    const data: Snapshot = {
      schemaVersion: SCHEMA_VERSION,
      generation,
      collections: {},
    };
    for (const [name, c] of this.collections) data.collections[name] = [...c.values()];
    await pauseAt('compact-rotated');
    await old.close();
    await writeSnapshot(join(this.dir, SNAPSHOT_FILE), data, () => pauseAt('compact-written'));
    await pauseAt('compact-renamed');
    // The old journal, and any older one a crash between two compactions left behind.
    for (const gen of await journalGenerations(this.dir))
      if (gen < generation) await rm(journalPath(this.dir, gen), { force: true });
  }

  private async load(): Promise<void> {
    const dir = this.dir;
    await ownerOnlyDir(dir);
    const lockKey = acquireLock(dir);
    this.lockKey = lockKey;
    try {
      const snapshotPath = join(dir, SNAPSHOT_FILE);
      const snapshot = await readSnapshot(snapshotPath).catch((error: unknown) => {
        if (!(error instanceof SnapshotError)) throw error;
        throw new StoreError(
          `the snapshot ${snapshotPath} cannot be read: ${error.message}; ${RECOVERY(dir)}`,
        );
      });
      if (snapshot !== null) {
        if (snapshot.schemaVersion > SCHEMA_VERSION) {
          throw new StoreError(
            `the data dir ${dir} was written by a newer plugsmith (store version ${snapshot.schemaVersion}, this one reads ${SCHEMA_VERSION}); upgrade plugsmith or use another --data-dir`,
          );
        }
        this.generation = snapshot.generation;
      }
      const journals = await journalGenerations(dir);
      checkJournalsFit(dir, snapshot, journals);
      if (snapshot !== null) this.fill(snapshot.collections);
      const snapshotGeneration = this.generation;
      let lines = 0;
      for (const gen of journals) {
        if (gen < snapshotGeneration) continue;
        lines += await this.replay(journalPath(dir, gen));
        this.generation = gen;
      }
      // Only once everything replayed: the journal a compaction left behind before its delete is in the snapshot.
      for (const gen of journals)
        if (gen < snapshotGeneration) await rm(journalPath(dir, gen), { force: true });
      for (const name of await readdir(dir))
        if (isSnapshotTemporary(name, SNAPSHOT_FILE)) await rm(join(dir, name), { force: true });
      this.journal = await Journal.open(journalPath(dir, this.generation), lines);
      // A new data dir gets its first snapshot; an older layout, or one without a checksum, is rewritten in today's, once.
      if (!snapshot || snapshot.schemaVersion < SCHEMA_VERSION || !snapshot.checked)
        await this.compact();
    } catch (error) {
      await this.journal?.close().catch(() => undefined);
      this.journal = null;
      releaseLock(dir, lockKey);
      throw error;
    }
  }

  /** Replaces every collection's records (a snapshot, or a journal's replace line); unknown collections are skipped. */
  private fill(contents: Record<string, BaseRecord[]>): void {
    for (const [name, c] of this.collections) c.replaceAll(contents[name] ?? []);
  }

  private async replay(path: string): Promise<number> {
    const text = await readFile(path, 'utf8');
    let start = 0;
    let count = 0;
    let lineNumber = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      if (end === -1) {
        // A torn final line was never acknowledged: cut it off so appends start clean.
        await truncate(path, Buffer.byteLength(text.slice(0, start)));
        break;
      }
      const line = text.slice(start, end);
      const lineStart = start;
      lineNumber++;
      const corrupt = (reason: string) =>
        new StoreError(
          `the journal ${path} is corrupt at line ${lineNumber} (byte ${Buffer.byteLength(text.slice(0, lineStart))}): ${reason}; ${RECOVERY(this.dir)}`,
        );
      start = end + 1;
      if (line.length === 0) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw corrupt('it is not valid JSON');
      }
      const problem = mutationProblem(parsed);
      if (problem) throw corrupt(problem);
      const m = parsed as Mutation;
      if (m.t === 'replace') this.fill(m.collections);
      else {
        for (const change of m.t === 'all' ? m.m : [m]) {
          const c = this.collections.get(change.c);
          if (change.t === 'put') c?.apply(change.r);
          else c?.remove(change.id);
        }
      }
      count++;
    }
    return count;
  }
}

/** How to recover from a data dir that cannot be opened: nothing of it is changed or deleted. */
function RECOVERY(dir: string): string {
  return `nothing in ${dir} was changed: restore it from a backup (or start an emulator with another --data-dir and load your last export with \`plugsmith emulator import <file>\`), or start with --data-dir elsewhere`;
}

/**
 * Refuses journals that do not fit the snapshot. A compaction opens journal-N+1, writes snapshot N+1, then deletes the older
 * journals; a start replays every journal from the snapshot's on. So beside snapshot N the journals from N on are N, N+1, …
 * without a gap (each compaction a crash cut short adds one), and without a snapshot they are 0, 1, … Older ones are what a
 * compaction left before its delete. A snapshot without a checksum (an older plugsmith) cannot show a raised generation, so
 * beside it only journal N-1 may be older. Anything else (the snapshot deleted, its generation raised, a journal removed)
 * would start with less data.
 */
function checkJournalsFit(
  dir: string,
  snapshot: Pick<Snapshot, 'generation' | 'checked'> | null,
  journals: number[],
): void {
  const first = snapshot?.generation ?? 0;
  const name = (gen: number) => join(dir, `journal-${gen}.jsonl`);
  const replayed = journals.filter((gen) => gen >= first);
  const gap = replayed.find((gen, i) => gen !== first + i);
  if (gap !== undefined && snapshot === null)
    throw new StoreError(
      `the snapshot ${join(dir, SNAPSHOT_FILE)} is missing, but ${name(gap)} exists: the data dir has lost its snapshot; ${RECOVERY(dir)}`,
    );
  const stale = snapshot?.checked ? undefined : journals.find((gen) => gen < first - 1);
  const orphan = gap ?? stale;
  if (orphan !== undefined)
    throw new StoreError(
      `${name(orphan)} does not fit the snapshot ${join(dir, SNAPSHOT_FILE)} (generation ${first}): the snapshot or the journals were changed, and starting would lose records; ${RECOVERY(dir)}`,
    );
}

/** What is wrong with a parsed journal line, or null when it is a change the store wrote. */
function mutationProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'it is not a change (not an object)';
  const m = value as Record<string, unknown>;
  if (m.t === 'all') {
    if (!Array.isArray(m.m)) return 'its batch of changes is not an array';
    for (const [i, change] of m.m.entries()) {
      const problem = changeProblem(change);
      if (problem) return `change ${i} of its batch: ${problem}`;
    }
    return null;
  }
  if (m.t === 'replace') {
    const collections = m.collections;
    if (typeof collections !== 'object' || collections === null || Array.isArray(collections))
      return 'its replacement has no collections';
    for (const [name, records] of Object.entries(collections)) {
      if (!Array.isArray(records)) return `its collection ${name} is not an array`;
      for (const [i, record] of records.entries()) {
        const problem = recordProblem(record);
        if (problem) return `record ${i} of its collection ${name} ${problem}`;
      }
    }
    return null;
  }
  return changeProblem(m);
}

function changeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'it is not a change (not an object)';
  const change = value as Record<string, unknown>;
  if (typeof change.c !== 'string') return 'it names no collection';
  if (change.t === 'put') {
    const problem = recordProblem(change.r);
    return problem && `its record ${problem}`;
  }
  if (change.t === 'del')
    return typeof change.id === 'string' ? null : 'its delete names no record id';
  return `its kind ${JSON.stringify(change.t)} is not put, del, all or replace`;
}

/** The generations of the journals in `dir`, oldest first. */
async function journalGenerations(dir: string): Promise<number[]> {
  return (await readdir(dir))
    .flatMap((f) => /^journal-(\d+)\.jsonl$/.exec(f)?.[1] ?? [])
    .map(Number)
    .sort((a, b) => a - b);
}

function journalPath(dir: string, generation: number): string {
  return join(dir, `journal-${generation}.jsonl`);
}
