import { describe, expect, it } from 'vitest';
import { createClient, serializeListQuery, toQueryString } from '../../src/client/index.js';
import { ok, receiver } from '../kit/index.js';

describe('serializeListQuery', () => {
  it('maps every field to its @ parameter and filters to plain ones, arrays repeated', () => {
    const pairs = serializeListQuery({
      page: 2,
      limit: 50,
      sortBy: ['name', 'createdAt'],
      sortOrder: ['asc', 'desc'],
      search: 'mail & calendar',
      filters: { isPublic: true, tags: ['ai', 'files'], type: 'APP', skipped: undefined, count: 3 },
    });
    expect(pairs).toEqual([
      ['@page', '2'],
      ['@limit', '50'],
      ['@sortBy', 'name,createdAt'],
      ['@sortOrder', 'asc,desc'],
      ['@search', 'mail & calendar'],
      ['isPublic', 'true'],
      ['tags', 'ai'],
      ['tags', 'files'],
      ['type', 'APP'],
      ['count', '3'],
    ]);
  });

  it('keeps an empty cursor (cursor pagination from the start) and single sort values', () => {
    expect(serializeListQuery({ cursor: '', sortBy: 'name', sortOrder: 'asc' })).toEqual([
      ['@cursor', ''],
      ['@sortBy', 'name'],
      ['@sortOrder', 'asc'],
    ]);
    expect(toQueryString([])).toBe('');
  });
});

describe('query on the wire', () => {
  it('reaches the server as the exact query string, decoding back to the same values', async () => {
    const server = await receiver((_req, res) => ok(res, []));
    const client = createClient({ baseUrl: server.url });
    await client.plugins.marketplace({
      page: 3,
      limit: 10,
      sortBy: ['name', 'createdAt'],
      sortOrder: 'asc',
      search: 'a&b=c #1',
      filters: { tags: ['ai', 'files'], isPublic: false, 'name with space': 'x/y' },
    });
    const url = server.received[0].url;
    expect(url).toBe(
      '/api/plugins/marketplace?@page=3&@limit=10&@sortBy=name%2CcreatedAt&@sortOrder=asc&@search=a%26b%3Dc%20%231&tags=ai&tags=files&isPublic=false&name%20with%20space=x%2Fy',
    );
    const params = new URL(url, 'http://x').searchParams;
    expect(params.get('@search')).toBe('a&b=c #1');
    expect(params.get('@sortBy')).toBe('name,createdAt');
    expect(params.getAll('tags')).toEqual(['ai', 'files']);
    expect(params.get('name with space')).toBe('x/y');
  });
});
