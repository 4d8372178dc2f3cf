import fc from 'fast-check';
import type { QuerySpec } from '../../emulator/api/list-query.js';

/** The record shape of the query property tests. */
export interface Item {
  id: string;
  name: string;
  score?: number;
  isPublic: boolean;
  tags: string[];
  kind: string;
  createdAt: string;
}

export const ITEM_QUERY: QuerySpec = {
  fields: {
    id: 'string',
    name: 'string',
    score: 'number',
    isPublic: 'boolean',
    tags: 'array',
    kind: 'string',
    createdAt: 'string',
  },
  search: ['name', 'tags'],
};

/** Indexed fields of the test collection: booleans, arrays and strings, as in the emulator. */
export const ITEM_INDEXES = ['isPublic', 'tags', 'kind'];

// Small value sets, so filters and ties actually hit.
const NAMES = ['alpha', 'Alpha', 'beta', 'Beta', 'gamma', 'ab', 'b', 'Zed', 'é', 'Éclair'];
const TAGS = ['x', 'y', 'z', 'w'];
const KINDS = ['A', 'B', 'C'];

export type Fields = Omit<Item, 'id' | 'createdAt'>;

export const fieldsArb: fc.Arbitrary<Fields> = fc.record(
  {
    name: fc.constantFrom(...NAMES),
    score: fc.integer({ min: -2, max: 2 }),
    isPublic: fc.boolean(),
    tags: fc.subarray(TAGS),
    kind: fc.constantFrom(...KINDS),
  },
  { requiredKeys: ['name', 'isPublic', 'tags', 'kind'] },
);

/** A change to the collection: add, update (a record chosen by position) or delete. */
export type Op =
  | { t: 'add'; fields: Fields; tick: number }
  | { t: 'update'; at: number; fields: Partial<Fields> }
  | { t: 'delete'; at: number };

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  // A tick below 0: a record created before the last one (as an import brings them).
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('add' as const),
      fields: fieldsArb,
      tick: fc.integer({ min: -2, max: 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('update' as const),
      at: fc.nat(),
      fields: fc.record(
        {
          name: fc.constantFrom(...NAMES),
          isPublic: fc.boolean(),
          tags: fc.subarray(TAGS),
          kind: fc.constantFrom(...KINDS),
          score: fc.integer({ min: -2, max: 2 }),
        },
        { requiredKeys: [] },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('delete' as const), at: fc.nat() }) },
);

/** How a list of filter values is written in the query string. */
type Form = 'single' | 'comma' | 'repeat';

/** A query both as the model reads it and as the raw query string object. */
export interface GenQuery {
  filters: Array<{ field: keyof Fields; values: unknown[] }>;
  sortBy: string[];
  sortOrder: Array<'asc' | 'desc'>;
  search?: string;
  limit?: number;
  page?: number;
  raw: Record<string, string | string[]>;
}

const filterArb = fc.oneof(
  fc.record({
    field: fc.constant('name' as const),
    values: fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    field: fc.constant('score' as const),
    values: fc.uniqueArray(fc.integer({ min: -2, max: 2 }), { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    field: fc.constant('isPublic' as const),
    values: fc.uniqueArray(fc.boolean(), { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    field: fc.constant('tags' as const),
    values: fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    field: fc.constant('kind' as const),
    values: fc.uniqueArray(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 2 }),
  }),
);

/** Undefined three times in four. */
function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

export function queryArb(options: { paging: boolean }): fc.Arbitrary<GenQuery> {
  return fc
    .record({
      filters: fc.uniqueArray(
        fc.record({ f: filterArb, form: fc.constantFrom<Form>('single', 'comma', 'repeat') }),
        {
          maxLength: 3,
          size: 'xsmall',
          selector: (x) => x.f.field,
        },
      ),
      sortBy: fc.shuffledSubarray(
        ['name', 'score', 'isPublic', 'tags', 'kind', 'createdAt', 'id'],
        { maxLength: 3 },
      ),
      orders: fc.array(fc.constantFrom<'asc' | 'desc'>('asc', 'desc'), { maxLength: 3 }),
      ordersForm: fc.constantFrom<Form>('comma', 'repeat'),
      search: rarely(fc.constantFrom('a', 'A', 'B', 'ph', 'É', 'é', 'x', 'zz', 'ALPHA')),
      limit: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      page: options.paging
        ? fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined })
        : fc.constant(undefined),
    })
    .map(({ filters, sortBy, orders, ordersForm, search, limit, page }) => {
      const raw: Record<string, string | string[]> = {};
      for (const { f, form } of filters) {
        const strings = f.values.map(String);
        // A single value can only be written as one value.
        raw[f.field] =
          strings.length === 1 ? strings[0] : form === 'repeat' ? strings : strings.join(',');
      }
      const sortOrder = orders.slice(0, Math.max(sortBy.length, 1));
      if (sortBy.length > 0) raw['@sortBy'] = sortBy.join(',');
      if (sortOrder.length > 0)
        raw['@sortOrder'] =
          ordersForm === 'repeat' && sortOrder.length > 1 ? sortOrder : sortOrder.join(',');
      if (search !== undefined) raw['@search'] = search;
      if (limit !== undefined) raw['@limit'] = String(limit);
      if (page !== undefined) raw['@page'] = String(page);
      return { filters: filters.map((x) => x.f), sortBy, sortOrder, search, limit, page, raw };
    });
}

/** The reference model: records in insertion order and a naive query evaluation. */
export class Model {
  readonly items: Item[] = [];

  add(item: Item): void {
    this.items.push(item);
  }

  update(id: string, fields: Partial<Fields>): Item {
    const i = this.items.findIndex((x) => x.id === id);
    this.items[i] = { ...this.items[i], ...fields };
    return this.items[i];
  }

  delete(id: string): void {
    this.items.splice(
      this.items.findIndex((x) => x.id === id),
      1,
    );
  }

  /** Every matching record, in the query's order. */
  select(
    q: Pick<GenQuery, 'filters' | 'sortBy' | 'sortOrder' | 'search'>,
    where: Array<[keyof Item, unknown]> = [],
    visible?: (i: Item) => boolean,
  ): Item[] {
    const out = this.items.filter((item) => {
      for (const [field, value] of where) if (item[field] !== value) return false;
      if (visible && !visible(item)) return false;
      for (const { field, values } of q.filters) {
        const v = item[field];
        if (Array.isArray(v)) {
          if (!v.some((x) => values.includes(x))) return false;
        } else if (!values.includes(v)) return false;
      }
      if (q.search !== undefined) {
        const needle = q.search.toLowerCase();
        const hay = [item.name, ...item.tags].map((s) => s.toLowerCase());
        if (!hay.some((s) => s.includes(needle))) return false;
      }
      return true;
    });
    const sortBy = q.sortBy.length > 0 ? q.sortBy : ['createdAt'];
    const orders = sortBy.map(
      (_, i) => q.sortOrder[i] ?? q.sortOrder[q.sortOrder.length - 1] ?? 'desc',
    );
    // Ties go by id, in the direction of the first key.
    return out.sort((a, b) => {
      for (let i = 0; i < sortBy.length; i++) {
        const c = naiveCompare(a[sortBy[i] as keyof Item], b[sortBy[i] as keyof Item]);
        if (c !== 0) return orders[i] === 'asc' ? c : -c;
      }
      const c = naiveCompare(a.id, b.id);
      return orders[0] === 'asc' ? c : -c;
    });
  }
}

/** Missing first; numbers and booleans by value; strings by code units; arrays as joined strings. */
function naiveCompare(a: unknown, b: unknown): number {
  if (a === undefined && b === undefined) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  if (typeof a === 'number' || typeof a === 'boolean') return Number(a) - Number(b);
  const as = Array.isArray(a) ? a.join(',') : String(a);
  const bs = Array.isArray(b) ? b.join(',') : String(b);
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/** Index pagination as the spec defines it, computed from the model's full result. */
export function modelPage(all: Item[], page: number, limit: number) {
  const totalPages = Math.ceil(all.length / limit);
  return {
    data: all.slice((page - 1) * limit, page * limit).map((x) => x.id),
    pagination: {
      type: 'index',
      page,
      limit,
      total: all.length,
      totalPages,
      hasNext: page < totalPages,
      hasPrev: page > 1,
    },
  };
}
