import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { parseQuery } from '../../../emulator/api/list-query.js';
import { HttpError } from '../../../emulator/errors.js';
import { ITEM_QUERY } from '../../kit/query-model.js';

type Raw = Record<string, string | string[]>;

/** The HttpError parseQuery throws for `raw`, or fails the test. */
function refusal(raw: Raw): HttpError {
  try {
    parseQuery(raw, ITEM_QUERY);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error(`parseQuery accepted ${JSON.stringify(raw)}`);
}

/** Bad parameters, each with the detail path it must produce. */
const BAD: Array<{ raw: Raw; path: string }> = [
  { raw: { '@limit': '0' }, path: '@limit' },
  { raw: { '@limit': '101' }, path: '@limit' },
  { raw: { '@limit': 'ten' }, path: '@limit' },
  { raw: { '@limit': '2.5' }, path: '@limit' },
  { raw: { '@limit': '' }, path: '@limit' },
  { raw: { '@limit': ['5', '6'] }, path: '@limit' },
  { raw: { '@limit': '0x10' }, path: '@limit' },
  { raw: { '@limit': '1e1' }, path: '@limit' },
  { raw: { '@limit': ' 10' }, path: '@limit' },
  { raw: { '@limit': '+5' }, path: '@limit' },
  { raw: { '@page': '0b11' }, path: '@page' },
  { raw: { '@page': '0' }, path: '@page' },
  { raw: { '@page': '-3' }, path: '@page' },
  { raw: { '@page': '1e400' }, path: '@page' },
  { raw: { '@page': '99999999999999999999' }, path: '@page' },
  { raw: { '@sortBy': 'nope' }, path: '@sortBy' },
  { raw: { '@sortBy': 'name,constructor' }, path: '@sortBy' },
  { raw: { '@sortBy': '__proto__' }, path: '@sortBy' },
  { raw: { '@sortOrder': 'up' }, path: '@sortOrder' },
  { raw: { '@sortOrder': 'ASC' }, path: '@sortOrder' },
  { raw: { '@sortOrder': 'asc,desc,asc,desc' }, path: '@sortOrder' },
  { raw: { '@sortBy': ',,' }, path: '@sortBy' },
  { raw: { '@sortBy': '' }, path: '@sortBy' },
  { raw: { '@sortOrder': ',' }, path: '@sortOrder' },
  { raw: { '@cursor': ['a', 'b'] }, path: '@cursor' },
  { raw: { '@search': ['a', 'b'] }, path: '@search' },
  { raw: { '@foo': '1' }, path: '@foo' },
  { raw: { nope: 'x' }, path: 'nope' },
  { raw: { constructor: 'x' }, path: 'constructor' },
  { raw: { toString: 'x' }, path: 'toString' },
  { raw: { hasOwnProperty: 'x' }, path: 'hasOwnProperty' },
  { raw: { isPublic: 'yes' }, path: 'isPublic' },
  { raw: { isPublic: 'true,1' }, path: 'isPublic' },
  { raw: { score: 'abc' }, path: 'score' },
  { raw: { score: 'Infinity' }, path: 'score' },
  { raw: { score: '0x1F' }, path: 'score' },
  { raw: { score: '.5' }, path: 'score' },
  { raw: { score: '1e' }, path: 'score' },
  { raw: { name: ',' }, path: 'name' },
  { raw: { tags: ['', ' '] }, path: 'tags' },
];

describe('parseQuery', () => {
  test('defaults: page 1, limit 20, newest first, no filters', () => {
    expect(parseQuery({}, ITEM_QUERY)).toEqual({
      page: 1,
      limit: 20,
      cursor: undefined,
      sortBy: ['createdAt'],
      sortOrder: ['desc'],
      search: undefined,
      filters: [],
    });
  });

  test('comma lists and repeated parameters are the same filter; values take the field type', () => {
    const a = parseQuery(
      { name: 'a,b', score: '1,-2', isPublic: 'true', tags: ['x', 'y,z'] },
      ITEM_QUERY,
    );
    expect(a.filters).toEqual([
      { field: 'name', values: ['a', 'b'] },
      { field: 'score', values: [1, -2] },
      { field: 'isPublic', values: [true] },
      { field: 'tags', values: ['x', 'y', 'z'] },
    ]);
    expect(parseQuery({ name: ['a', 'b'] }, ITEM_QUERY).filters).toEqual(a.filters.slice(0, 1));
  });

  test('a number filter takes the forms JSON writes for a number, exponents included', () => {
    expect(parseQuery({ score: '1e3,1.5E-7,-2' }, ITEM_QUERY).filters).toEqual([
      { field: 'score', values: [1000, 1.5e-7, -2] },
    ]);
  });

  test('fewer orders than fields: the last order applies to the rest', () => {
    expect(
      parseQuery({ '@sortBy': 'name,score,kind', '@sortOrder': 'asc' }, ITEM_QUERY).sortOrder,
    ).toEqual(['asc', 'asc', 'asc']);
    expect(
      parseQuery({ '@sortBy': ['name', 'score,kind'], '@sortOrder': ['desc', 'asc'] }, ITEM_QUERY),
    ).toMatchObject({
      sortBy: ['name', 'score', 'kind'],
      sortOrder: ['desc', 'asc', 'asc'],
    });
    expect(parseQuery({ '@sortBy': 'name,score' }, ITEM_QUERY).sortOrder).toEqual(['desc', 'desc']);
  });

  test('@cursor= (empty) means from the start; @search= (empty) means no search', () => {
    expect(parseQuery({ '@cursor': '', '@search': '' }, ITEM_QUERY)).toMatchObject({
      cursor: '',
      search: undefined,
    });
  });

  test('@page together with @cursor is refused', () => {
    const e = refusal({ '@page': '2', '@cursor': '' });
    expect(e.details?.map((d) => d.path)).toEqual([['@page']]);
  });

  test.each(BAD)('refuses $raw with a detail on $path', ({ raw, path }) => {
    const e = refusal(raw);
    expect(e.status).toBe(400);
    expect(e.message).toBe('Invalid query parameters');
    expect(e.details?.map((d) => d.path[0])).toContain(path);
    for (const d of e.details ?? []) {
      expect(d).toEqual({
        path: expect.any(Array),
        code: expect.any(String),
        expected: expect.any(String),
        received: expect.any(String),
        message: expect.any(String),
      });
    }
  });

  test('__proto__ as a filter name (an own key, as a query parser makes it) is refused', () => {
    const raw = JSON.parse('{"__proto__": "x"}') as Raw;
    expect(refusal(raw).details?.map((d) => d.path[0])).toEqual(['__proto__']);
  });

  test('several bad parameters at once: one detail for each, good ones change nothing', () => {
    const goodArb = fc.record(
      {
        name: fc.constantFrom('a', 'b,c'),
        '@limit': fc.constantFrom('1', '100'),
        '@sortBy': fc.constantFrom('name', 'score,kind'),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...BAD), {
          minLength: 1,
          maxLength: 5,
          selector: (b) => Object.keys(b.raw)[0],
        }),
        goodArb,
        (bad, good) => {
          const raw: Raw = { ...good };
          for (const b of bad) Object.assign(raw, b.raw);
          const e = refusal(raw);
          expect(e.status).toBe(400);
          expect(e.message).toBe('Invalid query parameters');
          const paths = new Set(e.details?.map((d) => d.path[0]));
          for (const b of bad) expect(paths).toContain(b.path);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('any query string object either parses or is a 400 with details, never another error', () => {
    const key = fc.oneof(
      fc.constantFrom(
        '@page',
        '@limit',
        '@cursor',
        '@sortBy',
        '@sortOrder',
        '@search',
        'name',
        'score',
        'isPublic',
        'tags',
        'kind',
        'id',
        'createdAt',
        '__proto__',
        'constructor',
        '@',
        '',
      ),
      fc.string({ maxLength: 8 }),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('1', '0', '-1', '100', 'true', 'asc', 'desc', 'name', 'x,y', ','),
      fc.array(fc.string({ maxLength: 6 }), { minLength: 2, maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 6 }), (entries) => {
        const raw = Object.fromEntries(entries) as Raw;
        try {
          const q = parseQuery(raw, ITEM_QUERY);
          expect(q.limit).toBeGreaterThanOrEqual(1);
          expect(q.limit).toBeLessThanOrEqual(100);
          expect(q.sortOrder).toHaveLength(q.sortBy.length);
          for (const f of q.sortBy) expect(Object.hasOwn(ITEM_QUERY.fields, f)).toBe(true);
          for (const f of q.filters) expect(Object.hasOwn(ITEM_QUERY.fields, f.field)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(HttpError);
          expect((error as HttpError).status).toBe(400);
          expect((error as HttpError).details?.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });
});
