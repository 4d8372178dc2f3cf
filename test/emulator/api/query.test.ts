import { beforeAll, describe, expect, test } from 'vitest';
import {
  ORG,
  OTHER_ORG,
  OTHER_REPOSITORY,
  TOKENS,
  useMatrixEmulator,
  type MatrixEmulator,
} from '../../kit/matrix-emulator.js';
import { expectOk, expectValidationError } from '../../kit/envelope.js';
import type { CallOptions } from '../../kit/http.js';

// The shared query system over HTTP on every collection endpoint of issue 2. Each endpoint gets
// its own emulator holding five records named below, created in this order.
const NAMES = ['Charlie', 'Alpha', 'Echo', 'Bravo', 'Delta'];

interface Endpoint {
  name: string;
  token?: string;
  /**
   * Creates the five records (and whatever they live in); returns the path to list, an id outside
   * its scope, and a way to add one more record to the collection.
   */
  seed: (
    m: MatrixEmulator,
  ) => Promise<{ path: string; foreignId: string; add: (name: string) => Promise<unknown> }>;
  /** Names already in the collection from the seed, oldest first. */
  existing: string[];
}

const definitions = (segment: 'actions' | 'external-events') => async (m: MatrixEmulator) => {
  const plugin = await m.createPlugin();
  for (const name of NAMES)
    await m.createDefinition(plugin.id, segment, {
      name,
      title: `${name} title`,
      description: `About ${name}`,
    });
  const other = await m.createPlugin();
  const foreign = await m.createDefinition(other.id, segment, { name: 'Foreign' });
  return {
    path: `/api/plugins/${plugin.id}/${segment}`,
    foreignId: foreign.id,
    add: (name: string) => m.createDefinition(plugin.id, segment, { name }),
  };
};

const endpoints: Endpoint[] = [
  {
    name: 'GET /api/plugins/marketplace',
    existing: [],
    async seed(m) {
      for (const name of NAMES)
        await m.createPlugin({ name, isPublic: true, description: `About ${name}` });
      const hidden = await m.createPlugin({ name: 'Private', isPublic: false });
      return {
        path: '/api/plugins/marketplace',
        foreignId: hidden.id,
        add: (name) => m.createPlugin({ name, isPublic: true }),
      };
    },
  },
  {
    name: 'GET /api/orgs/:orgId/plugins',
    token: TOKENS.viewer,
    existing: [],
    async seed(m) {
      for (const [i, name] of NAMES.entries())
        await m.createPlugin({ name, isPublic: i % 2 === 0, description: `About ${name}` });
      const foreign = await m.createPlugin({ name: 'Beta plugin', isPublic: true }, OTHER_ORG);
      return {
        path: `/api/orgs/${ORG}/plugins`,
        foreignId: foreign.id,
        add: (name) => m.createPlugin({ name }),
      };
    },
  },
  {
    name: 'GET /api/orgs/:orgId/repositories',
    token: TOKENS.viewer,
    existing: ['Acme docs'],
    async seed(m) {
      for (const name of NAMES) {
        const response = await m.call('POST', `/api/orgs/${ORG}/repositories`, {
          token: TOKENS.owner,
          body: { name, description: `About ${name}` },
        });
        expect(response.status).toBe(201);
      }
      const add = (name: string) =>
        m.call('POST', `/api/orgs/${ORG}/repositories`, { token: TOKENS.owner, body: { name } });
      return { path: `/api/orgs/${ORG}/repositories`, foreignId: OTHER_REPOSITORY, add };
    },
  },
  {
    name: 'GET /api/plugins/:pluginId/actions',
    token: TOKENS.viewer,
    existing: [],
    seed: definitions('actions'),
  },
  {
    name: 'GET /api/plugins/:pluginId/external-events',
    token: TOKENS.viewer,
    existing: [],
    seed: definitions('external-events'),
  },
];

describe.each(endpoints)('$name', (endpoint) => {
  const emulator = useMatrixEmulator();
  let path = '';
  let foreignId = '';
  let add: (name: string) => Promise<unknown> = async () => undefined;
  const all = [...endpoint.existing, ...NAMES];
  const newestFirst = [...all].reverse();

  beforeAll(async () => {
    ({ path, foreignId, add } = await endpoint.seed(emulator.current));
  });

  const list = async (query: CallOptions['query'] = {}) => {
    const response = await emulator.current.call('GET', path, { token: endpoint.token, query });
    const data = expectOk(response);
    return {
      names: data.map((r: any) => r.name) as string[],
      ids: data.map((r: any) => r.id) as string[],
      pagination: response.body.meta.pagination,
    };
  };

  test('defaults: newest first, index pagination page 1 of 20', async () => {
    const { names, pagination } = await list();
    expect(names).toEqual(newestFirst);
    expect(pagination).toEqual({
      type: 'index',
      page: 1,
      limit: 20,
      total: all.length,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });
  });

  test('@page and @limit slice the list; meta.pagination says where you are', async () => {
    const totalPages = Math.ceil(all.length / 2);
    const second = await list({ '@limit': 2, '@page': 2 });
    expect(second.names).toEqual(newestFirst.slice(2, 4));
    expect(second.pagination).toEqual({
      type: 'index',
      page: 2,
      limit: 2,
      total: all.length,
      totalPages,
      hasNext: true,
      hasPrev: true,
    });
    const last = await list({ '@limit': 2, '@page': totalPages });
    expect(last.names).toEqual(newestFirst.slice((totalPages - 1) * 2));
    expect(last.pagination).toMatchObject({ hasNext: false, hasPrev: true });
    const beyond = await list({ '@limit': 2, '@page': totalPages + 1 });
    expect(beyond.names).toEqual([]);
    expect(beyond.pagination).toMatchObject({
      page: totalPages + 1,
      hasNext: false,
      hasPrev: true,
    });
  });

  test('@sortBy and @sortOrder, with comma lists and the last order applying to the rest', async () => {
    const byName = [...all].sort();
    expect((await list({ '@sortBy': 'name', '@sortOrder': 'asc' })).names).toEqual(byName);
    expect((await list({ '@sortBy': 'name' })).names).toEqual([...byName].reverse());
    expect((await list({ '@sortBy': 'name,createdAt', '@sortOrder': 'asc' })).names).toEqual(
      byName,
    );
    expect((await list({ '@sortBy': 'createdAt', '@sortOrder': 'asc' })).names).toEqual(all);
    expect(
      (await list({ '@sortBy': ['description', 'name'], '@sortOrder': 'desc' })).names,
    ).toEqual(
      [...all].sort((a, b) =>
        description(b) < description(a) ? -1 : description(b) > description(a) ? 1 : 0,
      ),
    );
  });

  test('a cursor walk sees every record once, in order, with cursor pagination', async () => {
    for (const order of [{}, { '@sortBy': 'name', '@sortOrder': 'asc' }] as Array<
      Record<string, string>
    >) {
      const expected = '@sortBy' in order ? [...all].sort() : newestFirst;
      const seen: string[] = [];
      let page = await list({ ...order, '@limit': 2 });
      seen.push(...page.names);
      let cursor = page.ids[page.ids.length - 1];
      for (let guard = 0; guard < 10; guard++) {
        page = await list({ ...order, '@limit': 2, '@cursor': cursor });
        seen.push(...page.names);
        const hasNext = seen.length < expected.length;
        expect(page.pagination).toEqual({
          type: 'cursor',
          limit: 2,
          hasNext,
          nextCursor: hasNext ? page.ids[page.ids.length - 1] : null,
        });
        if (!hasNext) break;
        cursor = page.pagination.nextCursor;
      }
      expect(seen).toEqual(expected);
    }
  });

  // Runs after the tests above, which expect exactly the five records.
  test('a cursor walk stays exact while records are added', async () => {
    const walk = async (query: CallOptions['query'], addAfterFirstPage: string) => {
      const seen: string[] = [];
      let page = await list({ ...query, '@limit': 2 });
      seen.push(...page.names);
      await add(addAfterFirstPage);
      while (page.pagination.hasNext) {
        page = await list({ ...query, '@limit': 2, '@cursor': page.ids[page.ids.length - 1] });
        seen.push(...page.names);
      }
      return seen;
    };
    // Oldest first: a record added during the walk comes at the end, and is seen once.
    expect(await walk({ '@sortOrder': 'asc' }, 'Foxtrot')).toEqual([...all, 'Foxtrot']);
    // Newest first: one added during the walk sorts before the cursor and is not seen; nothing repeats.
    expect(await walk({}, 'Golf')).toEqual(['Foxtrot', ...newestFirst]);
  });

  test('@search matches case-insensitively', async () => {
    expect((await list({ '@search': 'ECHO' })).names).toEqual(['Echo']);
    expect((await list({ '@search': 'about br' })).names).toEqual(['Bravo']);
    expect((await list({ '@search': 'zzz-nothing' })).names).toEqual([]);
  });

  test('property filters: single value, comma list, repeated parameter', async () => {
    expect((await list({ name: 'Alpha' })).names).toEqual(['Alpha']);
    expect((await list({ name: 'Alpha,Delta' })).names.sort()).toEqual(['Alpha', 'Delta']);
    expect((await list({ name: ['Alpha', 'Delta', 'Nobody'] })).names.sort()).toEqual([
      'Alpha',
      'Delta',
    ]);
    expect((await list({ name: 'Alpha', '@search': 'delta' })).names).toEqual([]);
  });

  test.each([
    ['a non-numeric @limit', { '@limit': 'ten' }, '@limit'],
    ['@limit 0', { '@limit': 0 }, '@limit'],
    ['@limit 101', { '@limit': 101 }, '@limit'],
    ['a fractional @limit', { '@limit': 2.5 }, '@limit'],
    ['@page 0', { '@page': 0 }, '@page'],
    ['a non-numeric @page', { '@page': 'first' }, '@page'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['a field inherited by every object', { constructor: 'x' }, 'constructor'],
    ['an unknown control parameter', { '@offset': 3 }, '@offset'],
    ['an unknown @sortBy field', { '@sortBy': 'name,shoeSize' }, '@sortBy'],
    ['a bad @sortOrder', { '@sortBy': 'name', '@sortOrder': 'sideways' }, '@sortOrder'],
    ['an unknown cursor', { '@cursor': 'nope_123' }, '@cursor'],
  ])('%s is 400 Invalid query parameters with details', async (_name, query, key) => {
    const response = await emulator.current.call('GET', path, { token: endpoint.token, query });
    const details = expectValidationError(response, [key], /^Invalid query parameters$/);
    expect(details.find((d) => d.path[0] === key)!.received).not.toBe('');
  });

  test('a cursor from outside this collection scope is unknown (400)', async () => {
    expectValidationError(
      await emulator.current.call('GET', path, {
        token: endpoint.token,
        query: { '@cursor': foreignId },
      }),
      ['@cursor'],
      /^Invalid query parameters$/,
    );
  });
});

function description(name: string): string {
  return name === 'Acme docs' ? "Acme's repository" : `About ${name}`;
}

describe('plugin filters (marketplace and an org plugins)', () => {
  const emulator = useMatrixEmulator();
  const plugins = {
    weather: {
      name: 'Weather',
      type: 'APP',
      tags: ['weather', 'api'],
      events: ['PLUGIN_INSTALLED'],
      scopes: [],
      isPublic: true,
    },
    docs: {
      name: 'Docs indexer',
      type: 'DATA_PROVIDER',
      tags: ['docs'],
      events: ['REPOSITORY_FILE_ADDED', 'PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
      isPublic: true,
    },
    greeter: {
      name: 'Greeter',
      type: 'EVENT_HANDLER',
      tags: ['chat', 'api'],
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      isPublic: true,
      description: 'Says HELLO politely',
    },
    secret: {
      name: 'Secret tool',
      type: 'APP',
      tags: ['api'],
      events: [],
      scopes: [],
      isPublic: false,
    },
  };
  const beta = {
    name: 'Beta weather',
    type: 'APP',
    tags: ['weather'],
    events: [],
    scopes: [],
    isPublic: true,
  };

  beforeAll(async () => {
    for (const fields of Object.values(plugins))
      await emulator.current.createPlugin({ description: '', ...fields });
    await emulator.current.createPlugin({ description: '', ...beta }, OTHER_ORG);
  });

  const names = async (path: string, query: CallOptions['query'], token?: string) => {
    const data = expectOk(await emulator.current.call('GET', path, { token, query }));
    return data.map((p: any) => p.name).sort();
  };
  const market = (query: CallOptions['query']) => names('/api/plugins/marketplace', query);

  test.each([
    ['tags=weather', { tags: 'weather' }, ['Beta weather', 'Weather']],
    ['tags as a comma list (any)', { tags: 'docs,chat' }, ['Docs indexer', 'Greeter']],
    ['tags repeated (any)', { tags: ['docs', 'chat'] }, ['Docs indexer', 'Greeter']],
    [
      'events (any)',
      { events: 'AGENT_MESSAGE_RECEIVED,REPOSITORY_FILE_ADDED' },
      ['Docs indexer', 'Greeter'],
    ],
    ['scopes', { scopes: 'REPOSITORY_FILES_READ' }, ['Docs indexer']],
    ['type (public ones only)', { type: 'APP' }, ['Beta weather', 'Weather']],
    ['type as a list', { type: 'APP,DATA_PROVIDER' }, ['Beta weather', 'Docs indexer', 'Weather']],
    ['isPublic=true', { isPublic: 'true' }, ['Beta weather', 'Docs indexer', 'Greeter', 'Weather']],
    ['isPublic=false', { isPublic: 'false' }, []],
    ['orgId', { orgId: OTHER_ORG }, ['Beta weather']],
    ['two filters together', { tags: 'api', type: 'EVENT_HANDLER' }, ['Greeter']],
    ['@search in tags', { '@search': 'CHAT' }, ['Greeter']],
    ['@search in description', { '@search': 'hello' }, ['Greeter']],
    ['@search with a filter', { '@search': 'weather', orgId: ORG }, ['Weather']],
  ])('marketplace: %s', async (_name, query, expected) => {
    expect(await market(query)).toEqual(expected);
  });

  test('isPublic must be a boolean', async () => {
    const response = await emulator.current.call('GET', '/api/plugins/marketplace', {
      query: { isPublic: 'yes' },
    });
    expectValidationError(response, ['isPublic'], /^Invalid query parameters$/);
  });

  test('org plugins: members filter over private ones too; non-members see public ones only', async () => {
    const path = `/api/orgs/${ORG}/plugins`;
    expect(await names(path, { isPublic: 'false' }, TOKENS.viewer)).toEqual(['Secret tool']);
    expect(await names(path, { tags: 'api' }, TOKENS.viewer)).toEqual([
      'Greeter',
      'Secret tool',
      'Weather',
    ]);
    expect(await names(path, { tags: 'api' }, TOKENS.outsider)).toEqual(['Greeter', 'Weather']);
    expect(await names(path, { isPublic: 'false' }, TOKENS.outsider)).toEqual([]);
    expect(await names(path, { '@search': 'secret' }, TOKENS.limitedOutside)).toEqual([]);
  });

  test('multi-field sort: type then name, with per-field orders', async () => {
    const sorted = async (order: string) => {
      const data = expectOk(
        await emulator.current.call('GET', `/api/orgs/${ORG}/plugins`, {
          token: TOKENS.owner,
          query: { '@sortBy': 'type,name', '@sortOrder': order },
        }),
      );
      return data.map((p: any) => p.name);
    };
    expect(await sorted('asc')).toEqual(['Secret tool', 'Weather', 'Docs indexer', 'Greeter']);
    expect(await sorted('asc,desc')).toEqual(['Weather', 'Secret tool', 'Docs indexer', 'Greeter']);
    expect(await sorted('desc,asc')).toEqual(['Greeter', 'Docs indexer', 'Secret tool', 'Weather']);
  });

  test('@page and @cursor together are refused', async () => {
    const response = await emulator.current.call('GET', '/api/plugins/marketplace', {
      query: { '@page': 1, '@cursor': '' },
    });
    expectValidationError(response, ['@page'], /^Invalid query parameters$/);
  });
});
