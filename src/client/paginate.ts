import type { ListQuery } from './query.js';
import type { Page } from './types.js';

/** A list method with its other arguments bound: `(q) => client.actions.list(pluginId, q)`. */
export type ListFn<T, Q extends ListQuery = ListQuery> = (query: Q) => Promise<Page<T>>;

/** Yields every record, following pages or `nextCursor`; stops at no next page or an empty page (a confused server cannot loop it). */
export async function* paginate<T, Q extends ListQuery = ListQuery>(
  list: ListFn<T, Q>,
  query: Q = {} as Q,
): AsyncGenerator<T> {
  let next: Q = { ...query };
  const seenCursors = new Set<string>();
  for (;;) {
    const page = await list(next);
    yield* page.data;
    const pagination = page.pagination;
    if (pagination === undefined || !pagination.hasNext || page.data.length === 0) return;
    if (pagination.type === 'cursor') {
      const cursor = pagination.nextCursor;
      if (cursor === null || cursor === undefined || seenCursors.has(cursor)) return;
      seenCursors.add(cursor);
      const { page: _page, ...rest } = next;
      next = { ...rest, cursor } as Q;
    } else {
      const current = typeof pagination.page === 'number' ? pagination.page : (next.page ?? 1);
      next = { ...next, page: current + 1 };
    }
  }
}

/** Every record of a listing as one array (see `paginate`). */
export async function collect<T, Q extends ListQuery = ListQuery>(
  list: ListFn<T, Q>,
  query: Q = {} as Q,
): Promise<T[]> {
  const records: T[] = [];
  for await (const record of paginate(list, query)) records.push(record);
  return records;
}
