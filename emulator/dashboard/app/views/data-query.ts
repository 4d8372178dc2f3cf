import type { SortOrder } from '#contract/enum-values';

/** The state of one list on the emulator's query system (`@sortBy`, `@sortOrder`, filters, `@search`, paging). */
export interface ListState {
  sortBy: string;
  sortOrder: SortOrder;
  search: string;
  /** Property filters: field to value ('' means no filter). */
  filters: Record<string, string>;
  limit: number;
  /** Index paging: the page, from 1. */
  page: number;
  /** Cursor paging: the cursors of the pages seen so far ('' is the first page); the last is the current page. */
  cursors: string[];
}

/** Pagination as the emulator answers it in `meta.pagination`. */
export type PageInfo =
  | {
      type: 'index';
      page: number;
      limit: number;
      total: number;
      totalPages: number;
      hasNext: boolean;
      hasPrev: boolean;
    }
  | { type: 'cursor'; limit: number; hasNext: boolean; nextCursor: string | null };

export function initialListState(defaultSort: string, defaultOrder: SortOrder = 'desc'): ListState {
  return {
    sortBy: defaultSort,
    sortOrder: defaultOrder,
    search: '',
    filters: {},
    limit: 20,
    page: 1,
    cursors: [''],
  };
}

/** The query string of a list request: fixed filters (a parent's id) first, then the list's state. */
export function listQuery(
  state: ListState,
  paging: 'index' | 'cursor',
  fixed: Record<string, string> = {},
): string {
  const q = new URLSearchParams(fixed);
  q.set('@sortBy', state.sortBy);
  q.set('@sortOrder', state.sortOrder);
  q.set('@limit', String(state.limit));
  if (paging === 'index') q.set('@page', String(state.page));
  else q.set('@cursor', state.cursors[state.cursors.length - 1] ?? '');
  if (state.search.trim() !== '') q.set('@search', state.search.trim());
  for (const [field, value] of Object.entries(state.filters))
    if (value.trim() !== '') q.set(field, value.trim());
  return q.toString();
}

/** Appends a query string to a path that may already have one. */
export function withQuery(path: string, query: string): string {
  if (query === '') return path;
  return path + (path.includes('?') ? '&' : '?') + query;
}
