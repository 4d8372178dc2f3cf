import { ApiError, detail, type ErrorDetail } from '../errors.js';
import type { BaseRecord, Collection } from './store.js';
import {
  LIST_QUERY_PARAMETERS,
  type Pagination,
  type QueryFieldType,
  type SortOrder,
} from '../../src/shared/contract/index.js';

/** What a collection endpoint allows in its query. */
export interface QuerySpec {
  fields: Record<string, QueryFieldType>;
  /** Fields `@search` looks into (strings or arrays of strings). */
  search: string[];
  /** The values of the string fields that are enums: a filter value outside them is a 400. */
  enums?: Readonly<Record<string, readonly string[]>>;
}

export interface ParsedQuery {
  page: number;
  limit: number;
  /** Set for cursor pagination; '' means "from the start". */
  cursor?: string;
  sortBy: string[];
  sortOrder: SortOrder[];
  search?: string;
  filters: Array<{ field: string; values: unknown[] }>;
}

type RawQuery = Record<string, string | string[] | undefined>;

const CONTROL: ReadonlySet<string> = new Set(LIST_QUERY_PARAMETERS);

/** The items of a comma list (or repeated parameter), trimmed; an empty item among others (`a,,b`, `a,`) is a problem, as the document's item pattern says. */
function list(raw: RawQuery, key: string, problems: ErrorDetail[]): string[] {
  const value = raw[key];
  if (value === undefined) return [];
  const parts = [value]
    .flat()
    .flatMap((p) => p.split(','))
    .map((p) => p.trim());
  const items = parts.filter((p) => p.length > 0);
  if (items.length > 0 && items.length < parts.length)
    problems.push(
      detail(
        [key],
        'too_small',
        'comma-separated items, none empty',
        value,
        `${key} has an empty item: remove the extra comma`,
      ),
    );
  return items;
}

function single(raw: RawQuery, key: string, problems: ErrorDetail[]): string | undefined {
  const value = raw[key];
  if (Array.isArray(value)) {
    problems.push(
      detail([key], 'invalid_type', 'a single value', value, `${key} must be given once`),
    );
    return value[value.length - 1];
  }
  return value;
}

function integer(
  raw: RawQuery,
  key: string,
  min: number,
  max: number,
  fallback: number,
  problems: ErrorDetail[],
): number {
  const value = single(raw, key, problems);
  if (value === undefined) return fallback;
  // Decimal digits only: Number() would also take "0x10", "1e1" and " 10 ".
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    problems.push(detail([key], 'invalid_type', 'integer', value, `${key} must be a whole number`));
    return fallback;
  }
  if (n < min || n > max) {
    const expected =
      max === Number.MAX_SAFE_INTEGER ? `integer >= ${min}` : `integer from ${min} to ${max}`;
    problems.push(
      detail(
        [key],
        n < min ? 'too_small' : 'too_big',
        expected,
        value,
        `${key} must be ${expected.replace('integer ', '')}`,
      ),
    );
    return fallback;
  }
  return n;
}

/** Reads the shared query system's parameters; throws a 400 `Invalid query parameters`. */
export function parseQuery(
  raw: RawQuery,
  spec: QuerySpec,
  ignore: readonly string[] = [],
): ParsedQuery {
  const problems: ErrorDetail[] = [];
  const limit = integer(raw, '@limit', 1, 100, 20, problems);
  const page = integer(raw, '@page', 1, Number.MAX_SAFE_INTEGER, 1, problems);
  const cursor = single(raw, '@cursor', problems);
  if (cursor !== undefined && raw['@page'] !== undefined) {
    problems.push(
      detail(
        ['@page'],
        'invalid_combination',
        'either @page or @cursor',
        raw['@page'],
        '@page and @cursor cannot be used together',
      ),
    );
  }

  const sortBy = list(raw, '@sortBy', problems);
  if (raw['@sortBy'] !== undefined && sortBy.length === 0) {
    problems.push(
      detail(
        ['@sortBy'],
        'too_small',
        'at least one field',
        raw['@sortBy'],
        '@sortBy needs a field; leave it out to sort by createdAt',
      ),
    );
  }
  if (sortBy.length === 0) sortBy.push('createdAt');
  for (const field of sortBy) {
    // Own keys only: `constructor` or `__proto__` are not fields.
    if (!Object.hasOwn(spec.fields, field)) {
      problems.push(
        detail(
          ['@sortBy'],
          'invalid_enum_value',
          Object.keys(spec.fields).join(' | '),
          field,
          `cannot sort by ${field}`,
        ),
      );
    }
  }
  const orders = list(raw, '@sortOrder', problems);
  if (raw['@sortOrder'] !== undefined && orders.length === 0) {
    problems.push(
      detail(
        ['@sortOrder'],
        'too_small',
        'asc | desc',
        raw['@sortOrder'],
        '@sortOrder needs asc or desc; leave it out for desc',
      ),
    );
  }
  const sortOrder: SortOrder[] = [];
  for (const order of orders) {
    if (order !== 'asc' && order !== 'desc') {
      problems.push(
        detail(
          ['@sortOrder'],
          'invalid_enum_value',
          'asc | desc',
          order,
          '@sortOrder must be asc or desc',
        ),
      );
    } else sortOrder.push(order);
  }
  if (orders.length > sortBy.length) {
    problems.push(
      detail(
        ['@sortOrder'],
        'too_big',
        `at most ${sortBy.length} orders`,
        raw['@sortOrder'],
        'more sort orders than @sortBy fields',
      ),
    );
  }
  // Fewer orders than fields: the last order given applies to the rest.
  const last = sortOrder.at(-1) ?? 'desc';
  while (sortOrder.length < sortBy.length) sortOrder.push(last);

  const search = single(raw, '@search', problems);

  const filters: ParsedQuery['filters'] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || CONTROL.has(key) || ignore.includes(key)) continue;
    if (key.startsWith('@')) {
      problems.push(
        detail(
          [key],
          'unrecognized_keys',
          [...CONTROL].join(' | '),
          key,
          `unknown query parameter ${key}`,
        ),
      );
      continue;
    }
    const type = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    if (!type) {
      problems.push(
        detail(
          [key],
          'unrecognized_keys',
          Object.keys(spec.fields).join(' | '),
          key,
          `cannot filter by ${key}`,
        ),
      );
      continue;
    }
    const parts = list(raw, key, problems);
    if (parts.length === 0) {
      problems.push(
        detail([key], 'too_small', 'at least one value', value, `${key} needs a value`),
      );
      continue;
    }
    const values: unknown[] = [];
    for (const part of parts) {
      if (type === 'boolean') {
        if (part === 'true' || part === 'false') values.push(part === 'true');
        else
          problems.push(
            detail([key], 'invalid_type', 'boolean', part, `${key} must be true or false`),
          );
      } else if (type === 'number') {
        // A JSON number, as the document's `type: number` reads (what tools write for one, such as 1e3 or 1.5E-7).
        const n = Number(part);
        if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(part) && Number.isFinite(n)) values.push(n);
        else
          problems.push(detail([key], 'invalid_type', 'number', part, `${key} must be a number`));
      } else if (spec.enums?.[key] && !spec.enums[key].includes(part)) {
        const allowed = spec.enums[key].join(' | ');
        problems.push(
          detail([key], 'invalid_enum_value', allowed, part, `${key} must be one of ${allowed}`),
        );
      } else values.push(part);
    }
    filters.push({ field: key, values });
  }

  if (problems.length > 0)
    throw new ApiError('VALIDATION_ERROR', 'Invalid query parameters', problems);
  return {
    page,
    limit,
    cursor,
    sortBy,
    sortOrder,
    search: search === '' ? undefined : search,
    filters,
  };
}

/** Where a query starts: equality constraints that every record must meet, and a visibility test. */
export interface QueryScope<T> {
  where?: Array<[field: string, value: unknown]>;
  visible?: (record: T) => boolean;
}

/** Runs a parsed query: scope (from an index where one fits), filters, search, sort (ties by id, first key's direction), page or cursor. */
export function runQuery<T extends BaseRecord>(
  collection: Collection<T>,
  query: ParsedQuery,
  spec: QuerySpec,
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
      (needle === undefined || spec.search.some((field) => fieldHolds(record, field, holdsNeedle))),
  );
  const compare = comparator<T>(query);
  matched.sort(compare);

  if (query.cursor !== undefined) {
    let start = 0;
    if (query.cursor !== '') {
      const at = collection.get(query.cursor);
      // A record outside the scope is unknown here too: a cursor must not reveal other orgs' ids.
      if (!at || !inScope(at)) {
        throw new ApiError('VALIDATION_ERROR', 'Invalid query parameters', [
          detail(
            ['@cursor'],
            'invalid_cursor',
            'the id of a record of this collection',
            query.cursor,
            'unknown cursor: page on from the id of the last record you received',
          ),
        ]);
      }
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

function comparator<T extends BaseRecord>(query: ParsedQuery): (a: T, b: T) => number {
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
