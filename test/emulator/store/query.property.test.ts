import { afterEach, describe, expect, test } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Store, type Collection } from '../../../emulator/store/store.js';
import { runQuery, type QueryScope } from '../../../emulator/store/query.js';
import { parseQuery, runList } from '../../../emulator/api/list-query.js';
import {
  fieldsArb,
  ITEM_INDEXES,
  ITEM_QUERY,
  Model,
  modelPage,
  opArb,
  queryArb,
  type Fields,
  type Item,
  type Op,
} from '../../kit/query-model.js';

/** A fresh in-memory collection and its model, kept in step. */
class World {
  private clock = Date.parse('2024-01-01T00:00:00.000Z');
  private counter = 0;
  readonly model = new Model();

  private constructor(
    readonly items: Collection<Item>,
    readonly store: Store,
  ) {}

  /** In memory, or on a data dir (closed after the test). */
  static async create(dataDir?: string): Promise<World> {
    let items!: Collection<Item>;
    const store = await Store.open({ dataDir }, (s) => {
      items = s.define<Item>('items', ITEM_INDEXES);
    });
    if (dataDir) stores.push(store);
    return new World(items, store);
  }

  /** Closes a data dir's store and opens it again: records and indexes come back from the snapshot and the journal. */
  async reopen(dataDir: string): Promise<World> {
    await this.store.close();
    const world = await World.create(dataDir);
    Object.assign(world, { clock: this.clock, counter: this.counter, model: this.model });
    return world;
  }

  /** Ids that do not sort like insertion order, so `@sortBy=id` means something. */
  private nextId(): string {
    const n = this.counter++;
    return `it_${String((n * 7919) % 10007).padStart(5, '0')}`;
  }

  async add(fields: Fields, tick = 1): Promise<Item> {
    // A negative tick makes a record older than the one before (an import's records come in any order).
    this.clock += tick;
    const item: Item = {
      ...fields,
      id: this.nextId(),
      createdAt: new Date(this.clock).toISOString(),
    };
    this.model.add(item);
    await this.items.put({ ...item, tags: [...item.tags] });
    return item;
  }

  async apply(op: Op): Promise<void> {
    const list = this.model.items;
    if (op.t === 'add') await this.add(op.fields, op.tick);
    else if (list.length === 0) return;
    else if (op.t === 'update') {
      const updated = this.model.update(list[op.at % list.length].id, op.fields);
      await this.items.put({ ...updated, tags: [...updated.tags] });
    } else {
      const id = list[op.at % list.length].id;
      this.model.delete(id);
      await this.items.delete(id);
    }
  }
}

const ids = (xs: Item[]) => xs.map((x) => x.id);

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

/** Optional scopes an endpoint adds: an equality constraint on an indexed field, a visibility test. */
const scopeArb = fc.record({
  where: fc.option(
    fc.constantFrom<Array<[keyof Item, unknown]>>(
      [['kind', 'A']],
      [['isPublic', true]],
      [
        ['kind', 'B'],
        ['isPublic', false],
      ],
    ),
    { nil: undefined },
  ),
  visibleKind: fc.option(fc.constantFrom('A', 'C'), { nil: undefined }),
});

function toScope(s: { where?: Array<[keyof Item, unknown]>; visibleKind?: string }): {
  scope: QueryScope<Item>;
  where: Array<[keyof Item, unknown]>;
  visible?: (i: Item) => boolean;
} {
  // Visible: public records, or any record of one kind (like "public, or of my org").
  const visible =
    s.visibleKind === undefined ? undefined : (i: Item) => i.isPublic || i.kind === s.visibleKind;
  return {
    scope: { where: s.where as Array<[string, unknown]> | undefined, visible },
    where: s.where ?? [],
    visible,
  };
}

describe('runQuery against a reference model', () => {
  test('index pages: data and pagination equal the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 60, size: 'medium' }),
        fc.array(fc.tuple(queryArb({ paging: true }), scopeArb), { minLength: 1, maxLength: 5 }),
        async (ops, queries) => {
          const world = await World.create();
          for (const op of ops) await world.apply(op);
          for (const [q, s] of queries) {
            const { scope, where, visible } = toScope(s);
            const result = runQuery(world.items, parseQuery(q.raw, ITEM_QUERY), ITEM_QUERY, scope);
            const expected = modelPage(
              world.model.select(q, where, visible),
              q.page ?? 1,
              q.limit ?? 20,
            );
            expect({ data: ids(result.data), pagination: result.pagination }).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('after a reopen (records from the snapshot, then changed by the journal) pages equal the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 40, size: 'medium' }),
        fc.array(opArb, { maxLength: 20, size: 'medium' }),
        fc.array(fc.tuple(queryArb({ paging: true }), scopeArb), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (before, after, queries, queryFirst) => {
          const dir = await mkdtemp(join(tmpdir(), 'plugsmith-query-'));
          try {
            let world = await World.create(dir);
            for (const op of before) await world.apply(op);
            if (queryFirst)
              runQuery(world.items, parseQuery({ kind: 'A' }, ITEM_QUERY), ITEM_QUERY);
            await world.store.compact();
            for (const op of after) await world.apply(op);
            world = await world.reopen(dir);
            for (const [q, s] of queries) {
              const { scope, where, visible } = toScope(s);
              const result = runQuery(
                world.items,
                parseQuery(q.raw, ITEM_QUERY),
                ITEM_QUERY,
                scope,
              );
              const expected = modelPage(
                world.model.select(q, where, visible),
                q.page ?? 1,
                q.limit ?? 20,
              );
              expect({ data: ids(result.data), pagination: result.pagination }).toEqual(expected);
            }
          } finally {
            await Promise.all(stores.splice(0).map((s) => s.close()));
            await rm(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  test('every page of an index walk together is the whole result, once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fieldsArb, { maxLength: 40, size: 'medium' }),
        queryArb({ paging: false }),
        async (records, q) => {
          const world = await World.create();
          for (const f of records) await world.add(f, 0);
          const limit = q.limit ?? 20;
          const seen: string[] = [];
          for (let page = 1; ; page++) {
            const r = runQuery(
              world.items,
              parseQuery({ ...q.raw, '@page': String(page) }, ITEM_QUERY),
              ITEM_QUERY,
            );
            seen.push(...ids(r.data));
            if (r.pagination.type !== 'index' || !r.pagination.hasNext) break;
            expect(r.data).toHaveLength(limit);
          }
          expect(seen).toEqual(ids(world.model.select(q)));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a cursor walk sees every record exactly once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 60, size: 'medium' }),
        queryArb({ paging: false }),
        scopeArb,
        async (ops, q, s) => {
          const world = await World.create();
          for (const op of ops) await world.apply(op);
          const { scope, where, visible } = toScope(s);
          const seen: string[] = [];
          let cursor = '';
          for (let steps = 0; ; steps++) {
            expect(steps).toBeLessThan(200);
            const r = runQuery(
              world.items,
              parseQuery({ ...q.raw, '@cursor': cursor }, ITEM_QUERY),
              ITEM_QUERY,
              scope,
            );
            if (r.pagination.type !== 'cursor') throw new Error('expected cursor pagination');
            expect(r.pagination.limit).toBe(q.limit ?? 20);
            seen.push(...ids(r.data));
            if (!r.pagination.hasNext) {
              expect(r.pagination.nextCursor).toBeNull();
              break;
            }
            expect(r.data).toHaveLength(q.limit ?? 20);
            expect(r.pagination.nextCursor).toBe(r.data[r.data.length - 1].id);
            cursor = r.pagination.nextCursor!;
          }
          expect(seen).toEqual(ids(world.model.select(q, where, visible)));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a cursor walk while records are added sees every earlier record exactly once, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fieldsArb, { maxLength: 40, size: 'medium' }),
        queryArb({ paging: false }),
        fc.array(fc.array(fieldsArb, { maxLength: 4 }), { maxLength: 20 }),
        async (initial, q, batches) => {
          const world = await World.create();
          for (const f of initial) await world.add(f, 1);
          const before = ids(world.model.select(q));
          const earlier = new Set(ids(world.model.items));
          const seen: string[] = [];
          let cursor = '';
          for (let step = 0; ; step++) {
            expect(step).toBeLessThan(200);
            const r = runQuery(
              world.items,
              parseQuery({ ...q.raw, '@cursor': cursor }, ITEM_QUERY),
              ITEM_QUERY,
            );
            if (r.pagination.type !== 'cursor') throw new Error('expected cursor pagination');
            seen.push(...ids(r.data));
            if (!r.pagination.hasNext) break;
            cursor = r.pagination.nextCursor!;
            for (const f of batches[step] ?? []) await world.add(f, 1);
          }
          // No record twice; the earlier ones all there, in their order; new ones at their sorted place.
          expect(new Set(seen).size).toBe(seen.length);
          expect(seen.filter((id) => earlier.has(id))).toEqual(before);
          const finalOrder = ids(world.model.select(q));
          expect(seen).toEqual(finalOrder.filter((id) => seen.includes(id)));
        },
      ),
      { numRuns: 200 },
    );
  });

  test('updates that move records between index values keep filtered results and where() right', async () => {
    // Many updates of indexed fields, then single-value filters on them with the default sort.
    const updateArb = fc.record({
      at: fc.nat(),
      fields: fc.record(
        {
          tags: fc.subarray(['x', 'y', 'z', 'w']),
          kind: fc.constantFrom('A', 'B', 'C'),
          isPublic: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fieldsArb, { minLength: 1, maxLength: 30 }),
        fc.array(
          fc.oneof(
            updateArb.map((u) => ({ t: 'update' as const, ...u })),
            fc.record({ t: fc.constant('delete' as const), at: fc.nat() }),
            fc.record({ t: fc.constant('add' as const), fields: fieldsArb, tick: fc.constant(1) }),
          ),
          { maxLength: 40 },
        ),
        fc.constantFrom<[keyof Fields, string]>(
          ['tags', 'x'],
          ['tags', 'y'],
          ['tags', 'x,z'],
          ['kind', 'A'],
          ['kind', 'B,C'],
          ['isPublic', 'true'],
          ['isPublic', 'false'],
        ),
        fc.constantFrom('asc', 'desc', undefined),
        async (initial, ops, [field, value], order) => {
          const world = await World.create();
          for (const f of initial) await world.add(f, 1);
          for (const op of ops) await world.apply(op);
          const raw: Record<string, string> = { [field]: value, '@limit': '100' };
          if (order) raw['@sortOrder'] = order;
          const values = value.split(',').map((v) => (field === 'isPublic' ? v === 'true' : v));
          const q = {
            filters: [{ field, values }],
            sortBy: [],
            sortOrder: order ? [order as 'asc' | 'desc'] : [],
          };
          expect(ids(runQuery(world.items, parseQuery(raw, ITEM_QUERY), ITEM_QUERY).data)).toEqual(
            ids(world.model.select(q)),
          );
          // Collection.where holds the same records, for every single value.
          for (const v of values) {
            expect(ids(world.items.where(field, v)).sort()).toEqual(
              ids(
                world.model.select({
                  filters: [{ field, values: [v] }],
                  sortBy: [],
                  sortOrder: ['asc'],
                }),
              ).sort(),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('runQuery cursors', () => {
  test('an unknown cursor, or one outside the scope, is a 400 with a detail on @cursor', async () => {
    const world = await World.create();
    const a = await world.add({ name: 'a', isPublic: true, tags: [], kind: 'A' });
    const b = await world.add({ name: 'b', isPublic: false, tags: [], kind: 'B' });
    const expectBadCursor = (cursor: string, scope: QueryScope<Item>) => {
      try {
        runList(world.items, parseQuery({ '@cursor': cursor }, ITEM_QUERY), ITEM_QUERY, scope);
        expect.unreachable();
      } catch (error) {
        expect(error).toMatchObject({
          status: 400,
          message: 'Invalid query parameters',
          details: [expect.objectContaining({ path: ['@cursor'], code: 'invalid_cursor' })],
        });
      }
    };
    expectBadCursor('it_nope', {});
    expectBadCursor(b.id, { where: [['isPublic', true]] });
    expectBadCursor(b.id, { visible: (i) => i.isPublic });
    expect(
      ids(
        runQuery(
          world.items,
          parseQuery({ '@cursor': a.id, '@sortOrder': 'asc' }, ITEM_QUERY),
          ITEM_QUERY,
        ).data,
      ),
    ).toEqual([b.id]);
  });

  test('a cursor whose record no longer matches the filter still pages on from its place', async () => {
    const world = await World.create();
    const made: Item[] = [];
    for (let i = 0; i < 6; i++)
      made.push(await world.add({ name: `n${i}`, isPublic: true, tags: ['x'], kind: 'A' }));
    const first = runQuery(
      world.items,
      parseQuery({ tags: 'x', '@cursor': '', '@limit': '2', '@sortOrder': 'asc' }, ITEM_QUERY),
      ITEM_QUERY,
    );
    expect(ids(first.data)).toEqual(ids(made.slice(0, 2)));
    // The last record seen loses its tag: the walk still continues right after it.
    await world.items.put({ ...made[1], tags: [] });
    const next = runQuery(
      world.items,
      parseQuery(
        { tags: 'x', '@cursor': made[1].id, '@limit': '2', '@sortOrder': 'asc' },
        ITEM_QUERY,
      ),
      ITEM_QUERY,
    );
    expect(ids(next.data)).toEqual(ids(made.slice(2, 4)));
  });
});
