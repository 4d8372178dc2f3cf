import { serializeRecord, StoreError, type BaseRecord } from './record.js';

/**
 * A change of one collection not yet applied, with the journal text of its record (serialized
 * before it touches memory); the store applies it, alone or in an atomic batch.
 */
export type PendingChange =
  | { t: 'put'; collection: Collection<BaseRecord>; record: BaseRecord; text: string }
  | { t: 'del'; collection: Collection<BaseRecord>; id: string };

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
    private readonly submit: (change: PendingChange) => Promise<void>,
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
    const index = this.indexes.get(field);
    if (index === undefined) throw new Error(`collection ${this.name} has no index on ${field}`);
    return index ?? this.buildIndexes([field]).get(field)!;
  }

  /**
   * Builds the declared indexes among `fields` that are not built yet, in one pass over the
   * records (a query that filters on two indexed fields reads 100,000 records once, not twice).
   */
  buildIndexes(fields: readonly string[]): Map<string, Map<unknown, Posting>> {
    const built = new Map<string, Map<unknown, Posting>>();
    const todo: string[] = [];
    for (const field of new Set(fields)) {
      const index = this.indexes.get(field);
      if (index === undefined) throw new Error(`collection ${this.name} has no index on ${field}`);
      if (index === null) todo.push(field);
      else built.set(field, index);
    }
    if (todo.length === 0) return built;
    if (this.unparsed > 0) this.parseAll();
    const fresh = todo.map(() => new Map<unknown, Posting>());
    // The records are in insertion order, which is sequence order: every posting is built
    // ordered, and without looking up each record's sequence number.
    for (const record of this.records.values() as IterableIterator<T>) {
      const id = record.id;
      for (let i = 0; i < todo.length; i++) {
        const value = (record as unknown as Record<string, unknown>)[todo[i]];
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const v of value) postInOrder(fresh[i], v, id);
        else postInOrder(fresh[i], value, id);
      }
    }
    // No record has a sequence number above nextSeq - 1: a later one posted is in order, a
    // changed older one is not (the posting is then sorted when read).
    const lastSeq = this.nextSeq - 1;
    for (let i = 0; i < todo.length; i++) {
      for (const posting of fresh[i].values()) posting.lastSeq = lastSeq;
      this.indexes.set(todo[i], fresh[i]);
      built.set(todo[i], fresh[i]);
    }
    return built;
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
    return this.submit({ t: 'put', collection: this as unknown as Collection<BaseRecord>, record, text });
  }

  /** Removes a record if present; resolves once durable. */
  delete(id: string): Promise<void> {
    return this.submit({ t: 'del', collection: this as unknown as Collection<BaseRecord>, id });
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

/**
 * The ids of a posting, in the order they were added: a plain list until an id is removed, then a
 * set. Building an index over 100,000 records adds to lists (a set's hashing took most of the
 * build); removals, rarer, pay for the set once. An id added twice in a row (a record whose array
 * field repeats a value) is kept once.
 */
export class PostingIds implements Iterable<string> {
  private list: string[] | null = [];
  private set: Set<string> | null = null;

  get size(): number {
    return this.set ? this.set.size : this.list!.length;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.set ? this.set.values() : this.list![Symbol.iterator]();
  }

  has(id: string): boolean {
    return this.set ? this.set.has(id) : this.list!.includes(id);
  }

  add(id: string): void {
    if (this.set) this.set.add(id);
    else if (this.list![this.list!.length - 1] !== id) this.list!.push(id);
  }

  delete(id: string): void {
    if (!this.set) {
      this.set = new Set(this.list);
      this.list = null;
    }
    this.set.delete(id);
  }
}

/** The ids of the records that have one value of an indexed field. */
export interface Posting {
  readonly ids: PostingIds;
  /** False once an id was added out of insertion order (an update changed the field). */
  ordered: boolean;
  lastSeq: number;
}

function post(index: Map<unknown, Posting>, value: unknown, id: string, seq: number): void {
  let posting = index.get(value);
  if (!posting) index.set(value, (posting = { ids: new PostingIds(), ordered: true, lastSeq: -1 }));
  posting.ids.add(id);
  if (seq < posting.lastSeq) posting.ordered = false;
  posting.lastSeq = Math.max(posting.lastSeq, seq);
}

/** Adds an id to the posting of a value while an index is built in sequence order. */
function postInOrder(index: Map<unknown, Posting>, value: unknown, id: string): void {
  let posting = index.get(value);
  if (!posting) index.set(value, (posting = { ids: new PostingIds(), ordered: true, lastSeq: -1 }));
  posting.ids.add(id);
}

function unpost(index: Map<unknown, Posting>, value: unknown, id: string): void {
  const posting = index.get(value);
  if (!posting) return;
  posting.ids.delete(id);
  if (posting.ids.size === 0) index.delete(value);
}

const EMPTY: Posting = { ids: new PostingIds(), ordered: true, lastSeq: -1 };

function indexValues(record: BaseRecord, field: string): unknown[] {
  const value = (record as unknown as Record<string, unknown>)[field];
  if (Array.isArray(value)) return value;
  return value === undefined ? [] : [value];
}
