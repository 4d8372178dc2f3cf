import { HttpError, detail, type ErrorDetail } from '../errors.js';
import { runQuery, UnknownCursor, type QueryScope, type StoreQuery } from '../store/query.js';
import type { BaseRecord, Collection } from '../store/store.js';
import {
  LIST_QUERY_PARAMETERS,
  type Pagination,
  type QueryFieldType,
  type SortOrder,
} from '#contract';

/** The query system of list routes, route side: the query string read into the store's typed query, and its errors as 400s. */

/** What a collection endpoint allows in its query. */
export interface QuerySpec {
  fields: Record<string, QueryFieldType>;
  /** Fields `@search` looks into (strings or arrays of strings). */
  search: string[];
  /** The values of the string fields that are enums: a filter value outside them is a 400. */
  enums?: Readonly<Record<string, readonly string[]>>;
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

/** Reads the shared query system's parameters from a query string into the store's typed query; throws a 400 `Invalid query parameters`. */
export function parseQuery(
  raw: RawQuery,
  spec: QuerySpec,
  ignore: readonly string[] = [],
): StoreQuery {
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

  const filters: StoreQuery['filters'] = [];
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
    throw new HttpError('VALIDATION_ERROR', 'Invalid query parameters', problems);
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

/** Runs a list's query on the store; a cursor outside the scope is a 400 `Invalid query parameters` with a detail on @cursor. */
export function runList<T extends BaseRecord>(
  collection: Collection<T>,
  query: StoreQuery,
  spec: QuerySpec,
  scope: QueryScope<T> = {},
): { data: T[]; pagination: Pagination } {
  try {
    return runQuery(collection, query, spec, scope);
  } catch (error) {
    if (!(error instanceof UnknownCursor)) throw error;
    throw new HttpError('VALIDATION_ERROR', 'Invalid query parameters', [
      detail(
        ['@cursor'],
        'invalid_cursor',
        'the id of a record of this collection',
        error.cursor,
        'unknown cursor: page on from the id of the last record you received',
      ),
    ]);
  }
}
