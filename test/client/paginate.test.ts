import { describe, expect, it } from 'vitest';
import { collect, createClient, paginate } from '../../src/client/index.js';
import { ok, receiver } from '../kit/index.js';

const records = Array.from({ length: 7 }, (_, i) => ({ id: `plg_${i + 1}` }));

describe('paginate', () => {
  it('follows index pages until hasNext is false', async () => {
    const server = await receiver((req, res) => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const page = Number(params.get('@page') ?? '1');
      const limit = Number(params.get('@limit') ?? '20');
      const totalPages = Math.ceil(records.length / limit);
      ok(res, records.slice((page - 1) * limit, page * limit), {
        pagination: {
          type: 'index',
          page,
          limit,
          total: records.length,
          totalPages,
          hasNext: page < totalPages,
          hasPrev: page > 1,
        },
      });
    });
    const client = createClient({ baseUrl: server.url });
    const seen: string[] = [];
    for await (const plugin of paginate((q) => client.plugins.listByOrg('org_acme', q), {
      limit: 3,
      filters: { isPublic: true },
    }))
      seen.push(plugin.id);
    expect(seen).toEqual(records.map((r) => r.id));
    expect(server.received.map((r) => r.url)).toEqual([
      '/api/orgs/org_acme/plugins?@limit=3&isPublic=true',
      '/api/orgs/org_acme/plugins?@page=2&@limit=3&isPublic=true',
      '/api/orgs/org_acme/plugins?@page=3&@limit=3&isPublic=true',
    ]);
  });

  it('follows nextCursor when the server answers with cursor pagination', async () => {
    const server = await receiver((req, res) => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const cursor = params.get('@cursor') ?? '';
      const limit = Number(params.get('@limit') ?? '20');
      const start = cursor === '' ? 0 : records.findIndex((r) => r.id === cursor) + 1;
      const data = records.slice(start, start + limit);
      const hasNext = start + limit < records.length;
      ok(res, data, {
        pagination: {
          type: 'cursor',
          limit,
          hasNext,
          nextCursor: hasNext ? data.at(-1)?.id : null,
        },
      });
    });
    const client = createClient({ baseUrl: server.url });
    const seen: string[] = [];
    for await (const action of paginate((q) => client.actions.list('plg 1', q), {
      cursor: '',
      limit: 4,
    }))
      seen.push(String(action.id));
    expect(seen).toEqual(records.map((r) => r.id));
    expect(server.received.map((r) => r.url)).toEqual([
      '/api/plugins/plg%201/actions?@limit=4&@cursor=',
      '/api/plugins/plg%201/actions?@limit=4&@cursor=plg_4',
    ]);
  });

  it('stops on a page without pagination and on a server that claims more but sends nothing', async () => {
    const plain = await receiver((_req, res) => ok(res, [{ id: 'a' }]));
    const client = createClient({ baseUrl: plain.url });
    const first: unknown[] = [];
    for await (const item of paginate((q) => client.plugins.marketplace(q))) first.push(item);
    expect(first).toEqual([{ id: 'a' }]);

    const liar = await receiver((_req, res) =>
      ok(res, [], {
        pagination: {
          type: 'index',
          page: 1,
          limit: 20,
          total: 99,
          totalPages: 5,
          hasNext: true,
          hasPrev: false,
        },
      }),
    );
    const lying = createClient({ baseUrl: liar.url });
    const none: unknown[] = [];
    for await (const item of paginate((q) => lying.plugins.marketplace(q))) none.push(item);
    expect(none).toEqual([]);
    expect(liar.received).toHaveLength(1);
  });
});

describe('paginate over messages', () => {
  it('follows the messaging cursor through `after`', async () => {
    const server = await receiver((req, res) => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const after = params.get('after');
      const start = after === null ? 0 : records.findIndex((r) => r.id === after) + 1;
      const data = records.slice(start, start + 5);
      const hasNext = start + 5 < records.length;
      ok(res, data, {
        pagination: {
          type: 'cursor',
          limit: 5,
          hasNext,
          nextCursor: hasNext ? data.at(-1)?.id : null,
        },
      });
    });
    const client = createClient({ baseUrl: server.url, messagingUrl: server.url });
    const seen: string[] = [];
    for await (const message of paginate((q) => client.messaging.messages.list('conv_1', q), {
      limit: 5,
    }))
      seen.push(message.id);
    expect(seen).toEqual(records.map((r) => r.id));
    expect(server.received.map((r) => r.url)).toEqual([
      '/conversations/conv_1/messages?limit=5',
      '/conversations/conv_1/messages?after=plg_5&limit=5',
    ]);
  });
});

describe('collect', () => {
  it('returns every record of every page in order, passing the query on', async () => {
    const queries: unknown[] = [];
    const rows = await collect(
      async (q: { limit?: number; page?: number }) => {
        queries.push(q);
        const page = q.page ?? 1;
        const data = records.slice((page - 1) * 3, page * 3);
        return {
          data,
          pagination: {
            type: 'index' as const,
            page,
            limit: 3,
            total: records.length,
            totalPages: 3,
            hasNext: page < 3,
            hasPrev: page > 1,
          },
        };
      },
      { limit: 3 },
    );
    expect(rows).toEqual(records);
    expect(queries).toEqual([{ limit: 3 }, { limit: 3, page: 2 }, { limit: 3, page: 3 }]);
  });
});
