import type { BaseRecord, Collection } from './store.js';
import type { Pagination, SortOrder } from '#contract';

/** A typed query of one collection: filters, search, sort, and a page or a cursor (routes build it from a query string). */
export interface StoreQuery {
  page: number;
  limit: number;
  /** Set for cursor pagination; '' means "from the start". */
  cursor?: string;
  sortBy: string[];
  sortOrder: SortOrder[];
  search?: string;
  filters: Array<{ field: string; values: unknown[] }>;
}

/** The fields a query's `search` looks into (strings or arrays of strings). */
export interface Searchable {
  search: readonly string[];
}

/** The cursor names no record of the query's scope: the caller must page on from an id it received. */
export class UnknownCursor extends Error {
  constructor(readonly cursor: string) {
    super(`unknown cursor ${cursor}`);
  }
}

/** Where a query starts: equality constraints that every record must meet, and a visibility test. */
export interface QueryScope<T> {
  where?: Array<[field: string, value: unknown]>;
  visible?: (record: T) => boolean;
}

/**
 * Runs a query: scope (from an index where one fits), filters, search, sort (ties by id, first key's direction), page or cursor.
 * Throws UnknownCursor for a cursor outside the scope.
 */
export function runQuery<T extends BaseRecord>(
  collection: Collection<T>,
  query: StoreQuery,
  searchable: Searchable,
  scope: QueryScope<T> = {},
): { data: T[]; pagination: Pagination } {
  const where = scope.where ?? [];
  const inScope = (record: T) =>
    where.every(([field, value]) => matches(record, field, [value])) &&
    (scope.visible?.(record) ?? true);
  const indexed = where.find(([field]) => collection.hasIndex(field));
  const candidates: Iterable<T> = indexed
    ? collection.where(indexed[0], indexed[1])
    : collection.values();
  const needle = query.search?.toLowerCase();
  const holdsNeedle = (value: unknown) =>
    typeof value === 'string' && value.toLowerCase().includes(needle ?? '');
  const matched = [...candidates].filter(
    (record) =>
      inScope(record) &&
      query.filters.every(({ field, values }) => matches(record, field, values)) &&
      (needle === undefined ||
        searchable.search.some((field) => fieldHolds(record, field, holdsNeedle))),
  );
  const compare = comparator<T>(query);
  matched.sort(compare);

  if (query.cursor !== undefined) {
    let start = 0;
    if (query.cursor !== '') {
      const at = collection.get(query.cursor);
      // A record outside the scope is unknown here too: a cursor must not reveal other orgs' ids.
      if (!at || !inScope(at)) throw new UnknownCursor(query.cursor);
      const after = matched.findIndex((record) => compare(record, at) > 0);
      start = after === -1 ? matched.length : after;
    }
    const data = matched.slice(start, start + query.limit);
    const hasNext = start + query.limit < matched.length;
    return {
      data,
      pagination: {
        type: 'cursor',
        limit: query.limit,
        hasNext,
        nextCursor: hasNext ? data[data.length - 1].id : null,
      },
    };
  }
  const total = matched.length;
  const totalPages = Math.ceil(total / query.limit);
  const from = (query.page - 1) * query.limit;
  return {
    data: matched.slice(from, from + query.limit),
    pagination: {
      type: 'index',
      page: query.page,
      limit: query.limit,
      total,
      totalPages,
      hasNext: query.page < totalPages,
      hasPrev: query.page > 1,
    },
  };
}

function comparator<T extends BaseRecord>(query: StoreQuery): (a: T, b: T) => number {
  const keys = query.sortBy.map((field, i) => ({
    field,
    sign: query.sortOrder[i] === 'asc' ? 1 : -1,
  }));
  return (a, b) => {
    for (const { field, sign } of keys) {
      const c = compareValues(
        (a as Record<string, unknown>)[field],
        (b as Record<string, unknown>)[field],
      );
      if (c !== 0) return sign * c;
    }
    // Ties go by id, in the direction of the first key: a total order, so cursors are stable.
    return keys[0].sign * compareValues(a.id, b.id);
  };
}

/** Orders values of one field: missing and null first, then by type-appropriate comparison. */
function compareValues(a: unknown, b: unknown): number {
  const an = a === undefined || a === null;
  const bn = b === undefined || b === null;
  if (an || bn) return an && bn ? 0 : an ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const as = Array.isArray(a) ? a.join(',') : String(a);
  const bs = Array.isArray(b) ? b.join(',') : String(b);
  return as < bs ? -1 : as > bs ? 1 : 0;
}

/** Whether a record's field is one of `values` (an array field: holds one of them). */
function matches(record: object, field: string, values: unknown[]): boolean {
  return fieldHolds(record, field, (value) => values.includes(value));
}

/** Whether a record's field passes `test` (an array field: one of its items does). */
function fieldHolds(record: object, field: string, test: (value: unknown) => boolean): boolean {
  const actual = (record as Record<string, unknown>)[field];
  return Array.isArray(actual) ? actual.some(test) : test(actual);
}
