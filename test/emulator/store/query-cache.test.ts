import { describe, expect, test } from 'vitest';
import { Store } from '../../../emulator/store/store.js';
import { parseQuery, runQuery, type QuerySpec } from '../../../emulator/store/query.js';

const SPEC: QuerySpec = { fields: { name: 'string', tags: 'array', isPublic: 'boolean', createdAt: 'string' }, search: ['name'] };
interface Row {
  id: string;
  name: string;
  tags: string[];
  isPublic: boolean;
  createdAt: string;
}

describe('query result cache', () => {
  test('a repeated query sees every change made since, and callers cannot alter the cached result', async () => {
    const store = await Store.open({}, (s) => s.define('rows', ['tags', 'isPublic']));
    const rows = store.collection<Row>('rows');
    const put = (i: number, patch: Partial<Row> = {}) => rows.put({ id: `r${i}`, name: `row ${i}`, tags: ['a'], isPublic: true, createdAt: new Date(i).toISOString(), ...patch });
    for (let i = 0; i < 5; i++) await put(i);
    const query = parseQuery({ tags: 'a', '@limit': '10' }, SPEC);
    const run = () => runQuery(rows, query, SPEC, { where: [['isPublic', true]] });

    const first = run();
    expect(first.data.map((r) => r.id)).toEqual(['r4', 'r3', 'r2', 'r1', 'r0']);
    first.data.pop();
    expect(run().data).toHaveLength(5);

    await put(5);
    expect(run().data.map((r) => r.id)[0]).toBe('r5');
    await put(2, { isPublic: false });
    expect(run().data.map((r) => r.id)).not.toContain('r2');
    await rows.delete('r4');
    expect(run().data.map((r) => r.id)).toEqual(['r5', 'r3', 'r1', 'r0']);
    expect(run().pagination).toMatchObject({ type: 'index', total: 4 });
    await store.close();
  });
});
