import type { SortOrder } from '#contract/enum-values';

/** A value a property filter can take; arrays become repeated parameters. */
export type FilterValue = string | number | boolean;

/** The spec's shared query system, in client terms. */
export interface ListQuery {
  page?: number;
  limit?: number;
  /** Cursor pagination; `''` starts cursor pagination from the first record. */
  cursor?: string;
  sortBy?: string | string[];
  sortOrder?: SortOrder | SortOrder[];
  search?: string;
  /** Property filters: `{ isPublic: true, tags: ['ai', 'files'] }`. */
  filters?: Record<string, FilterValue | FilterValue[] | null | undefined>;
}

/** Query parameters as [name, value] pairs, in order, names unencoded. */
export type QueryPairs = Array<[string, string]>;

const LIST_PARAMETERS = ['page', 'limit', 'cursor', 'sortBy', 'sortOrder', 'search'] as const;

/** Serialises a ListQuery to `@page`, `@limit`, `@cursor`, `@sortBy`, `@sortOrder`, `@search` and filters. */
export function serializeListQuery(query: ListQuery | undefined): QueryPairs {
  if (query === undefined) return [];
  const pairs: QueryPairs = [];
  for (const name of LIST_PARAMETERS) {
    const value = query[name];
    if (value !== undefined)
      pairs.push([`@${name}`, Array.isArray(value) ? value.join(',') : String(value)]);
  }
  for (const [name, value] of Object.entries(query.filters ?? {})) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, String(one)]);
  }
  return pairs;
}

/** Plain parameters (not part of the query system), skipping undefined. */
export function plainParams(params: Record<string, FilterValue | undefined>): QueryPairs {
  return Object.entries(params).flatMap(
    ([name, value]): QueryPairs => (value === undefined ? [] : [[name, String(value)]]),
  );
}

/** `?a=1&b=2` (percent-encoded, `@` kept readable), or '' for no parameters. */
export function toQueryString(pairs: QueryPairs): string {
  if (pairs.length === 0) return '';
  return '?' + pairs.map(([k, v]) => `${encodeParam(k)}=${encodeParam(v)}`).join('&');
}

// '@' is legal in a query component; keeping it literal makes traces readable (`@limit=5`).
export function encodeParam(value: string): string {
  return encodeURIComponent(value).replace(/%40/g, '@');
}

/** Percent-encodes one path segment (plugin ids, action names…). */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
