/**
 * The ids of a posting, in the order they were added: a plain list until an id is removed, then a
 * set. Building an index over 100,000 records adds to lists (a set's hashing took most of the
 * build); removals, rarer, pay for the set once. An id added twice in a row (a record whose array
 * field repeats a value) is kept once. Membership tests on a long list build a set beside it once.
 */
export class PostingIds implements Iterable<string> {
  private list: string[] | null;
  private set: Set<string> | null = null;
  /** A set of the list's ids, made by the first `has` on a long list and kept up to date by `add`. */
  private members: Set<string> | null = null;
  /** The list's sequence numbers, rising, while every id came with one (a posting read from a snapshot). */
  private seqs: number[] | null;

  constructor(ids: string[] = [], seqs: number[] | null = null) {
    this.list = ids;
    this.seqs = seqs;
  }

  /** The ids with their rising sequence numbers, when known: two such postings intersect without hashing. */
  inOrder(): { ids: readonly string[]; seqs: readonly number[] } | null {
    return this.list && this.seqs ? { ids: this.list, seqs: this.seqs } : null;
  }

  get size(): number {
    return this.set ? this.set.size : this.list!.length;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.set ? this.set.values() : this.list![Symbol.iterator]();
  }

  has(id: string): boolean {
    if (this.set) return this.set.has(id);
    if (this.members) return this.members.has(id);
    if (this.list!.length <= 16) return this.list!.includes(id);
    this.members = new Set(this.list);
    return this.members.has(id);
  }

  /** Adds an id (with its sequence number, when the caller knows it). */
  add(id: string, seq?: number): void {
    if (this.set) this.set.add(id);
    else if (this.list![this.list!.length - 1] !== id) {
      this.list!.push(id);
      this.members?.add(id);
      if (this.seqs && seq !== undefined && seq > this.seqs[this.seqs.length - 1]) this.seqs.push(seq);
      else this.seqs = null;
    }
  }

  delete(id: string): void {
    if (!this.set) {
      this.set = this.members ?? new Set(this.list);
      this.list = null;
      this.members = null;
      this.seqs = null;
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

/**
 * The postings of one indexed field as they are written into a snapshot (as JSON):
 * `[[value, gaps], …]`, where `gaps` lists the positions of the value's records in the
 * collection's order as the first position, then the difference to the one before (so a posting
 * is sorted, and short to write and to parse). Only values that JSON keeps as they are (strings,
 * finite numbers, booleans, null) are written; a field with any other value is left out.
 */
export type PersistedPostings = Array<[value: string | number | boolean | null, gaps: number[]]>;

/**
 * The JSON text of PersistedPostings for each built index, the records given by their ids in the
 * order they are written; undefined when none is built.
 */
export function encodeIndexes(ids: Iterable<string>, size: number, indexes: ReadonlyMap<string, Map<unknown, Posting> | null>): Record<string, string> | undefined {
  let positions: Map<string, number> | null = null;
  let out: Record<string, string> | undefined;
  next: for (const [field, index] of indexes) {
    if (index === null) continue;
    if (positions === null) {
      positions = new Map();
      for (const id of ids) positions.set(id, positions.size);
      // The order of the ids must be the order the records are written in.
      if (positions.size !== size) return undefined;
    }
    const postings: string[] = [];
    for (const [value, posting] of index) {
      if (!keepsAsJson(value)) continue next;
      const at: number[] = [];
      for (const id of posting.ids) {
        const position = positions.get(id);
        // An id no record has would be a bug in the index: better not to write it at all.
        if (position === undefined) continue next;
        at.push(position);
      }
      if (at.length === 0) continue;
      if (!posting.ordered) at.sort((a, b) => a - b);
      const gaps: number[] = [];
      let last = -1;
      for (const position of at) {
        if (position === last) continue;
        if (position < last) continue next;
        gaps.push(gaps.length === 0 ? position : position - last);
        last = position;
      }
      postings.push(`[${JSON.stringify(value)},${JSON.stringify(gaps)}]`);
    }
    (out ??= {})[field] = `[${postings.join(',')}]`;
  }
  return out;
}

/**
 * The index of a field from PersistedPostings text, for records whose ids, in order, are `ids`
 * (sequence numbers 0 to ids.length - 1, so a position is a sequence number); null when the text does not describe such records
 * (then the index is built from the records instead).
 */
export function decodePostings(text: string, ids: readonly string[], lastSeq: number): Map<unknown, Posting> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const index = new Map<unknown, Posting>();
  for (const entry of parsed as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2 || !keepsAsJson(entry[0]) || index.has(entry[0]) || !Array.isArray(entry[1])) return null;
    const gaps = entry[1] as unknown[];
    if (gaps.length === 0) return null;
    const list: string[] = new Array(gaps.length);
    const seqs: number[] = new Array(gaps.length);
    let position = -1;
    for (let i = 0; i < gaps.length; i++) {
      const gap = gaps[i];
      // Positions strictly rise and stay among the records.
      if (typeof gap !== 'number' || !Number.isInteger(gap) || gap < (i === 0 ? 0 : 1)) return null;
      position = i === 0 ? gap : position + gap;
      if (position >= ids.length) return null;
      list[i] = ids[position];
      seqs[i] = position;
    }
    index.set(entry[0], { ids: new PostingIds(list, seqs), ordered: true, lastSeq });
  }
  return index;
}

function keepsAsJson(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0));
}
