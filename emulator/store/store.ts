import { Collection, type PendingChange } from './collection.js';
import { Persistence, type CompactAfter } from './persistence.js';
import { pauseAt } from './pause.js';
import { serializeRecord, StoreClosed, type BaseRecord } from './record.js';
import { Replacements, type ReplaceReason } from './replacements.js';

export { Collection } from './collection.js';
export { SCHEMA_VERSION } from './snapshot.js';
export {
  RecordRefused,
  serializeRecord,
  StoreClosed,
  StoreError,
  type BaseRecord,
} from './record.js';
export type { ReplaceReason, StoreReplaced } from './replacements.js';

export interface StoreOptions {
  /** Folder for the snapshot and journal; omitted means in memory only. */
  dataDir?: string;
  /** When the journal is compacted into the snapshot (defaults: 200,000 lines or 128 MiB); for tests. */
  compactAfter?: CompactAfter;
}

/** Named collections in memory; with a data dir, `Persistence` makes every change durable. */
export class Store {
  private readonly collections = new Map<string, Collection<BaseRecord>>();
  private persistence: Persistence | null = null;
  private closed = false;
  /** Each replacement of the whole store (reset, import), announced once it is done; its count is the store's generation. */
  readonly replacements = new Replacements();

  private constructor(readonly dataDir: string | null) {}

  /** Opens (and locks) a data dir, or an in-memory store when none is given. */
  static async open(options: StoreOptions, define: (store: Store) => void): Promise<Store> {
    const store = new Store(options.dataDir ?? null);
    define(store);
    if (store.dataDir)
      store.persistence = await Persistence.open(
        store.dataDir,
        store.collections,
        options.compactAfter,
      );
    return store;
  }

  /** Declares a collection; call before loading, from the `define` callback. */
  define<T extends BaseRecord>(name: string, indexFields: string[] = []): Collection<T> {
    const collection = new Collection<T>(name, (change) => this.submit(change), indexFields);
    this.collections.set(name, collection);
    return collection;
  }

  get persistent(): boolean {
    return this.dataDir !== null;
  }

  /** Changes made inside `atomically`, applied and written as one journal line when it ends. */
  private batch: {
    changes: PendingChange[];
    done: Promise<void>;
    settle: (line: Promise<void>) => void;
  } | null = null;

  /**
   * Runs `change` (synchronous puts and deletes) as one journal line, all or none after a crash; applied only when it returns,
   * so a throw or an unserializable record changes nothing (reads inside see the state before). Resolves once durable.
   */
  atomically(change: () => void): Promise<void> {
    if (this.batch) {
      change();
      return this.batch.done;
    }
    let settle!: (line: Promise<void>) => void;
    const done = new Promise<void>(
      (resolve, reject) => (settle = (line) => line.then(resolve, reject)),
    );
    // Callers that drop a put's promise must not meet an unhandled rejection when the store closes.
    done.catch(() => undefined);
    const batch = { changes: [] as PendingChange[], done, settle };
    this.batch = batch;
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

  /** A put or delete of a collection: applied now, or collected by the running batch. */
  private submit(change: PendingChange): Promise<void> {
    if (this.batch) {
      this.batch.changes.push(change);
      return this.batch.done;
    }
    return this.commit([change]);
  }

  /**
   * Applies serialized changes in memory and writes them as one journal line. When that line cannot be written (a full disk),
   * the changes are undone before the returned promise rejects: a refused write can be neither read nor built upon.
   */
  private commit(changes: PendingChange[]): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosed());
    const lines: string[] = [];
    const undos: Array<() => void> = [];
    for (const change of changes) {
      const collection = change.collection;
      if (change.t === 'put') {
        const id = change.record.id;
        const previous = collection.get(id);
        collection.apply(change.record);
        undos.push(previous ? () => collection.apply(previous) : () => collection.remove(id));
        lines.push(`{"t":"put","c":${JSON.stringify(collection.name)},"r":${change.text}}`);
      } else {
        const previous = collection.get(change.id);
        if (previous === undefined) continue;
        collection.remove(change.id);
        undos.push(() => collection.apply(previous));
        lines.push(
          `{"t":"del","c":${JSON.stringify(collection.name)},"id":${JSON.stringify(change.id)}}`,
        );
      }
    }
    if (lines.length === 0) return Promise.resolve();
    if (!this.persistence) return Promise.resolve();
    const line = lines.length === 1 ? lines[0] : `{"t":"all","m":[${lines.join(',')}]}`;
    const undo = () => {
      for (let i = undos.length - 1; i >= 0; i--) undos[i]();
    };
    return this.persistence.append(line, undo);
  }

  /**
   * Prepares an import: every record is serialized now (a refused one throws RecordRefused, nothing changed); the returned function
   * swaps memory and journals the whole contents as one line, so a crash leaves the old contents or the new, later changes after;
   * then announces the replacement.
   */
  prepareReplace(
    contents: Record<string, BaseRecord[]>,
    reason: ReplaceReason = 'import',
  ): () => Promise<void> {
    const parts: string[] = [];
    const prepared: Array<[Collection<BaseRecord>, BaseRecord[]]> = [];
    for (const [name, c] of this.collections) {
      const records = contents[name] ?? [];
      const texts = records.map((record, i) =>
        serializeRecord(name, record, ['collections', name, String(i)]),
      );
      parts.push(`${JSON.stringify(name)}:[${texts.join(',')}]`);
      prepared.push([c, records]);
    }
    return async () => {
      await pauseAt('import-start');
      if (this.closed) throw new StoreClosed();
      if (!this.persistence) {
        for (const [c, records] of prepared) c.replaceAll(records);
        this.replacements.announce(reason);
        return;
      }
      const before = prepared.map(([c]) => [c, [...c.values()]] as const);
      for (const [c, records] of prepared) c.replaceAll(records);
      const undo = () => {
        for (const [c, records] of before) c.replaceAll(records);
      };
      await this.persistence.append(`{"t":"replace","collections":{${parts.join(',')}}}`, undo);
      await pauseAt('import-journaled');
      this.persistence.compactSoon();
      this.replacements.announce(reason);
    };
  }

  /** Resolves once every acknowledged change is durable. */
  async flush(): Promise<void> {
    await this.persistence?.flush();
  }

  /** Empties every collection (durably): a replacement, announced as a reset. */
  clear(): Promise<void> {
    return this.prepareReplace({}, 'reset')();
  }

  /** Flushes and closes; the data dir's lock is released even when closing fails (which rejects once). */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.persistence?.close();
    } finally {
      this.closed = true;
    }
  }

  /** With a data dir, writes the whole state as a new snapshot and starts a fresh journal. */
  compact(): Promise<void> {
    return this.persistence?.compact() ?? Promise.resolve();
  }
}
