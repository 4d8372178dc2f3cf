import { serializeRecord, type BaseRecord } from './record.js';

/** A change of one collection not yet applied, with its record already serialized. */
export type PendingChange =
  | { t: 'put'; collection: Collection<BaseRecord>; record: BaseRecord; text: string }
  | { t: 'del'; collection: Collection<BaseRecord>; id: string };

/** One named set of records in memory by id, with a `value -> ids` index per field looked up by. */
export class Collection<T extends BaseRecord> {
  private readonly records = new Map<string, T>();
  private readonly indexes = new Map<string, Map<unknown, Set<string>>>();

  constructor(
    readonly name: string,
    private readonly submit: (change: PendingChange) => Promise<void>,
    indexFields: string[] = [],
  ) {
    for (const field of indexFields) this.indexes.set(field, new Map());
  }

  get size(): number {
    return this.records.size;
  }

  get(id: string): T | undefined {
    return this.records.get(id);
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  /** Records in insertion order. */
  values(): IterableIterator<T> {
    return this.records.values();
  }

  hasIndex(field: string): boolean {
    return this.indexes.has(field);
  }

  /** Records whose indexed field is `value` (for an array field: contains it). */
  where(field: string, value: unknown): T[] {
    const index = this.indexes.get(field);
    if (!index) throw new Error(`collection ${this.name} has no index on ${field}`);
    return [...(index.get(value) ?? [])].map((id) => this.records.get(id)!);
  }

  /** Inserts or replaces a record; resolves once durable. A record that cannot be written as JSON throws RecordRefused and changes nothing. */
  put(record: T): Promise<void> {
    const text = serializeRecord(this.name, record);
    return this.submit({
      t: 'put',
      collection: this,
      record,
      text,
    });
  }

  /** Removes a record if present; resolves once durable. */
  delete(id: string): Promise<void> {
    return this.submit({ t: 'del', collection: this, id });
  }

  /** @internal applies a put without logging it (load and replay). */
  apply(record: T): void {
    const previous = this.records.get(record.id);
    this.records.set(record.id, record);
    for (const [field, index] of this.indexes) {
      const before = previous ? indexValues(previous, field) : [];
      const after = indexValues(record, field);
      for (const value of before) if (!after.includes(value)) unpost(index, value, record.id);
      for (const value of after) {
        let ids = index.get(value);
        if (!ids) {
          ids = new Set();
          index.set(value, ids);
        }
        ids.add(record.id);
      }
    }
  }

  /** @internal */
  remove(id: string): void {
    const previous = this.records.get(id);
    if (previous === undefined) return;
    for (const [field, index] of this.indexes)
      for (const value of indexValues(previous, field)) unpost(index, value, id);
    this.records.delete(id);
  }

  /** @internal replaces every record without logging it (load, replay, import). */
  replaceAll(records: Iterable<T>): void {
    this.records.clear();
    for (const index of this.indexes.values()) index.clear();
    for (const record of records) this.apply(record);
  }
}

function unpost(index: Map<unknown, Set<string>>, value: unknown, id: string): void {
  const ids = index.get(value);
  if (!ids) return;
  ids.delete(id);
  if (ids.size === 0) index.delete(value);
}

function indexValues(record: BaseRecord, field: string): unknown[] {
  // A record is a plain JSON object (BaseRecord is an alias, so it reads as a string-keyed map).
  const fields: Readonly<Record<string, unknown>> = record;
  const value = fields[field];
  if (Array.isArray(value)) return value;
  return value === undefined ? [] : [value];
}
