import { beforeAll, describe, expect, test } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Emulator } from '../../emulator/index.js';
import { call, type CallOptions } from '../kit/http.js';
import { emulator } from '../kit/index.js';

// The OpenAPI document says exactly what the emulator accepts: for each limit the issue found
// missing or wrong (path parameter length, the query system's parameters, expiresIn, the upload
// body, undeclared methods), the document's declaration and the emulator's answer agree, value by value.

let emu: Emulator;
let doc: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  emu = await emulator({ inMemory: true, port: 0, messagingPort: 0 });
  doc = (await call(emu.url, 'GET', '/_emulator/openapi.json')).body;
});

/** Whether the document takes `schema` for `value` (refs resolved against its components). */
function documentTakes(schema: object, value: unknown): boolean {
  return ajv.compile({ ...schema, components: doc.components })(value);
}

/** A raw query value read as the parameter's schema types it (a form-style comma list when the parameter says so). */
function typedQueryValue(parameter: any, raw: string | string[]): unknown {
  const scalar = (text: string, type: string | undefined) =>
    type === 'integer' || type === 'number'
      ? (type === 'integer' ? /^-?\d+$/ : /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/).test(text)
        ? Number(text)
        : text
      : type === 'boolean'
        ? text === 'true'
          ? true
          : text === 'false'
            ? false
            : text
        : text;
  // A filter is one value or a list (`anyOf`): on the wire both are a form-style list.
  const list =
    parameter.schema.type === 'array'
      ? parameter.schema
      : parameter.schema.anyOf?.find((branch: any) => branch.type === 'array');
  if (list) {
    const parts = [raw].flat().flatMap((r) => (parameter.explode === false ? r.split(',') : [r]));
    return parts.map((p) => scalar(p, list.items.type));
  }
  // A parameter that is not an array is given once.
  if (Array.isArray(raw)) return raw;
  return scalar(raw, parameter.schema.type);
}

/** Whether the document takes a whole query for an operation: every parameter known and valid. */
function documentTakesQuery(operation: any, query: Record<string, string | string[]>): boolean {
  const parameters = (operation.parameters ?? []).filter((p: any) => p.in === 'query');
  return Object.entries(query).every(([name, raw]) => {
    const parameter = parameters.find((p: any) => p.name === name);
    return (
      parameter !== undefined && documentTakes(parameter.schema, typedQueryValue(parameter, raw))
    );
  });
}

const operation = (path: string, method: string) => doc.paths[path][method];

describe('the document says what the emulator accepts', () => {
  const marketplaceQueries: Array<Record<string, string | string[]>> = [
    { '@page': '1' },
    { '@page': '2' },
    { '@page': '0' },
    { '@page': '-1' },
    { '@page': 'abc' },
    { '@page': '1.5' },
    { '@page': ' 1' },
    { '@page': ['1', '2'] },
    { '@page': '9007199254740992' },
    { '@limit': '1' },
    { '@limit': '100' },
    { '@limit': '0' },
    { '@limit': '101' },
    { '@limit': '20' },
    { '@limit': 'x' },
    { '@limit': ['1', '2'] },
    { '@sortBy': 'name' },
    { '@sortBy': 'name,createdAt' },
    { '@sortBy': ['name', 'type'] },
    { '@sortBy': 'bogus' },
    { '@sortBy': 'name,bogus' },
    { '@sortBy': '' },
    { '@sortBy': 'name,type', '@sortOrder': 'asc' },
    { '@sortBy': 'name,type', '@sortOrder': 'asc,desc' },
    { '@sortBy': 'name,type', '@sortOrder': 'up' },
    { '@sortBy': 'name,type', '@sortOrder': '' },
    { '@cursor': '' },
    { '@cursor': ['', ''] },
    { '@search': 'weather' },
    { '@search': ['a', 'b'] },
    { type: 'EVENT_HANDLER' },
    { type: 'EVENT_HANDLER,DATA_PROVIDER' },
    { type: ['EVENT_HANDLER', 'DATA_PROVIDER'] },
    { type: '' },
    { tags: 'weather' },
    { isPublic: 'true' },
    { isPublic: 'yes' },
    { bogus: '1' },
    { '@bogus': '1' },
  ];
  test.each(marketplaceQueries)(
    'GET /api/plugins/marketplace?%j: the document and the emulator agree',
    async (query) => {
      const answer = await call(emu.url, 'GET', '/api/plugins/marketplace', { query });
      expect([200, 400]).toContain(answer.status);
      expect(
        documentTakesQuery(operation('/api/plugins/marketplace', 'get'), query),
        JSON.stringify(answer.body),
      ).toBe(answer.status === 200);
    },
  );

  const fileQueries: Array<Record<string, string | string[]>> = [
    { id: 'a,b' },
    { id: 'a,,b' },
    { id: 'a,' },
    { id: ['a', ''] },
    { fileSize: '1000' },
    { fileSize: '1e3' },
    { fileSize: '2.5E-1' },
    { fileSize: '0x10' },
    { fileSize: 'Infinity' },
    { status: 'UPLOADED' },
    { status: 'UPLOADED,FAILED' },
    { status: 'DONE' },
    { status: 'uploaded' },
    { parentType: 'ORG' },
    { parentType: 'USER' },
    { parentType: ['AGENT', 'KNOWLEDGE'] },
  ];
  test.each(fileQueries)('GET /api?%j: the document and the emulator agree', async (query) => {
    const answer = await call(emu.url, 'GET', '/api', { token: emu.token!, query });
    expect([200, 400]).toContain(answer.status);
    expect(documentTakesQuery(operation('/api', 'get'), query), JSON.stringify(answer.body)).toBe(
      answer.status === 200,
    );
  });

  test("@sortBy lists each list endpoint's own fields, and the emulator sorts by each", async () => {
    const sortBy = operation('/api/orgs/{orgId}/repositories', 'get').parameters.find(
      (p: any) => p.name === '@sortBy',
    );
    expect(sortBy).toMatchObject({ style: 'form', explode: false });
    for (const field of sortBy.schema.items.enum) {
      expect(
        (
          await call(emu.url, 'GET', `/api/orgs/${emu.orgId}/repositories`, {
            token: emu.token!,
            query: { '@sortBy': field },
          })
        ).status,
      ).toBe(200);
    }
    expect(sortBy.schema.items.enum).not.toContain('type');
    expect(
      (
        await call(emu.url, 'GET', `/api/orgs/${emu.orgId}/repositories`, {
          token: emu.token!,
          query: { '@sortBy': 'type' },
        })
      ).status,
    ).toBe(400);
  });

  test('every path parameter is declared up to 100 characters, as the router refuses longer ones', async () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        for (const parameter of item[method]?.parameters ?? []) {
          if (parameter.in === 'path')
            expect(parameter.schema, `${method} ${path} ${parameter.name}`).toMatchObject({
              type: 'string',
              minLength: 1,
              maxLength: 100,
            });
        }
      }
    }
    const at = (length: number) =>
      call(emu.url, 'GET', `/api/plugins/${'p'.repeat(length)}`, { token: emu.token! });
    expect((await at(100)).status).toBe(404);
    const over = await at(101);
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('A path parameter is too long');
  });

  test.each([['60'], ['1'], ['604800'], ['0'], ['604801'], ['abc'], ['1e3'], [['60', '60']]])(
    'GET /api/access/{fileId}?expiresIn=%j: the document and the emulator agree',
    async (expiresIn) => {
      const answer = await call(emu.url, 'GET', '/api/access/file_missing', {
        token: emu.token!,
        query: { expiresIn },
      });
      // A value the emulator takes reaches the file lookup: a 404 for this unknown file.
      expect([400, 404]).toContain(answer.status);
      expect(documentTakesQuery(operation('/api/access/{fileId}', 'get'), { expiresIn })).toBe(
        answer.status === 404,
      );
    },
  );

  test.each([['10'], ['100'], ['0'], ['101'], ['x'], [['1', '2']]])(
    'GET /conversations/{id}/messages?limit=%j: the document and the emulator agree',
    async (limit) => {
      const conversation = await call(emu.messagingUrl, 'POST', '/conversations', {
        token: `Bearer ${emu.apiKey}`,
        body: { characterId: 'char_nova' },
      });
      const answer = await call(
        emu.messagingUrl,
        'GET',
        `/conversations/${conversation.body.data.id}/messages`,
        { token: `Bearer ${emu.apiKey}`, query: { limit } },
      );
      expect([200, 400]).toContain(answer.status);
      expect(
        documentTakesQuery(operation('/conversations/{conversationId}/messages', 'get'), { limit }),
      ).toBe(answer.status === 200);
    },
  );

  const file = (fileName: string) => ({ files: [{ fileName }] });
  const uploadBodies: Array<[string, Record<string, unknown>]> = [
    ['a plain name', file('report.pdf')],
    ['an empty name', file('')],
    ['"."', file('.')],
    ['".."', file('..')],
    ['"..."', file('...')],
    ['".env"', file('.env')],
    ['a slash', file('a/b')],
    ['a backslash', file('a\\b')],
    ['a colon', file('a:b')],
    ['a control character', file('a\u0007b')],
    ['255 characters', file('n'.repeat(255))],
    ['256 characters', file('n'.repeat(256))],
    ['a folder', { ...file('a.txt'), folder: 'reports/2026' }],
    ['a folder in slashes', { ...file('a.txt'), folder: '/reports/' }],
    ['an empty folder', { ...file('a.txt'), folder: '' }],
    ['folder "/"', { ...file('a.txt'), folder: '/' }],
    ['a folder with //', { ...file('a.txt'), folder: 'a//b' }],
    ['a folder with ..', { ...file('a.txt'), folder: 'a/../b' }],
    ['a folder with .', { ...file('a.txt'), folder: './a' }],
    ['a folder of 101 characters', { ...file('a.txt'), folder: 'f'.repeat(101) }],
    ['a folder with a star', { ...file('a.txt'), folder: 'a*' }],
    ['parentId alone', { ...file('a.txt'), parentId: 'org_x' }],
    ['parentType alone', { ...file('a.txt'), parentType: 'ORG' }],
  ];
  test.each(uploadBodies)(
    'POST /api/generate-upload-url with %s: the document and the emulator agree',
    async (_name, body) => {
      const answer = await call(emu.url, 'POST', '/api/generate-upload-url', {
        token: emu.token!,
        body: { orgId: emu.orgId, ...body },
      });
      expect([201, 400]).toContain(answer.status);
      const schema = operation('/api/generate-upload-url', 'post').requestBody.content[
        'application/json'
      ].schema;
      expect(
        documentTakes(schema, { orgId: emu.orgId, ...body }),
        JSON.stringify(answer.body),
      ).toBe(answer.status === 201);
    },
  );

  test('GET /api/generate-upload-url declares the JSON body it requires, the same as POST', async () => {
    const get = operation('/api/generate-upload-url', 'get');
    expect(get.requestBody).toEqual(operation('/api/generate-upload-url', 'post').requestBody);
    expect(get.requestBody.required).toBe(true);
    expect(
      (await call(emu.url, 'GET', '/api/generate-upload-url', { token: emu.token! })).status,
    ).toBe(400);
    expect(
      (
        await call(emu.url, 'GET', '/api/generate-upload-url', {
          token: emu.token!,
          body: { orgId: emu.orgId, ...file('get.txt') },
        })
      ).status,
    ).toBe(200);
  });

  test('every path answers a method it does not declare with 405 and the Allow its description gives', async () => {
    const tried: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const declared = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
        (m) => item[m.toLowerCase()],
      );
      const allow = [
        ...declared.slice(0, declared.includes('GET') ? 1 : 0),
        ...(declared.includes('GET') ? ['HEAD'] : []),
        ...declared.filter((m) => m !== 'GET'),
      ].join(', ');
      expect(item.description, path).toContain(`Allow: ${allow}`);
      const method = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !declared.includes(m))!;
      const concrete = path.replace(/\{\w+\}/g, 'x1');
      const base = item.servers ? emu.messagingUrl : emu.url;
      const options: CallOptions = {
        token: item.servers ? `Bearer ${emu.apiKey}` : emu.token!,
        headers: emu.adminHeaders,
      };
      // A URL may fit two paths (/api/plugins/marketplace is also /api/plugins/{pluginId}): it has the methods of both.
      const fitting = Object.entries<any>(doc.paths).filter(([other]) =>
        new RegExp(`^${other.replace(/\{\w+\}/g, '[^/]+')}$`).test(concrete),
      );
      const methods = new Set(
        fitting.flatMap(([, other]) =>
          ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
            (m) => other[m.toLowerCase()] || (m === 'HEAD' && other.get),
          ),
        ),
      );
      if (methods.has(method)) continue;
      const answer = await call(base, method, concrete, options);
      tried.push(`${method} ${path}`);
      expect(answer.status, `${method} ${concrete}`).toBe(405);
      expect(answer.headers.allow, `${method} ${concrete}`).toBe(
        fitting.length === 1
          ? allow
          : ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
              .filter((m) => methods.has(m))
              .join(', '),
      );
      expect(answer.body.ok).toBe(false);
    }
    expect(tried.length).toBeGreaterThan(50);
    expect(doc.components.responses.MethodNotAllowed.headers).toHaveProperty('Allow');
  });
});

describe('the document for generators and fuzzers', () => {
  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      ['get', 'post', 'put', 'patch', 'delete']
        .filter((m) => item[m])
        .map((method) => ({ path, method, item, operation: item[method] })),
    );

  test('every operation has a unique camelCase operationId, a one-line summary and a declared tag', () => {
    const ids = new Set<string>();
    const tags = new Set(doc.tags.map((t: any) => t.name));
    for (const { path, method, operation } of operations()) {
      // A route declares its own metadata: operationId, tags, summary, description in its schema (docs/architecture.md).
      const name = `${method.toUpperCase()} ${path}: declare operationId, tags, summary and description in the route's schema`;
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(operation.operationId), `${name}: ${operation.operationId} twice`).toBe(false);
      ids.add(operation.operationId);
      expect(operation.summary, name).toMatch(/^[^\n]{3,100}$/);
      expect(operation.tags, name).toHaveLength(1);
      expect(tags.has(operation.tags[0]), `${name}: tag ${operation.tags[0]}`).toBe(true);
    }
    expect(doc.paths['/api/']).toBeUndefined();
    expect(doc.paths['/api'].get.operationId).toBe('listFiles');
  });

  test('every link names an operation, and each create operation links to what reads, changes or deletes what it made', () => {
    const ids = new Set(operations().map((o) => o.operation.operationId));
    const linksOf = (path: string, method: string) =>
      Object.values<any>(doc.paths[path][method].responses).flatMap((r) =>
        Object.values<any>(r.links ?? {}),
      );
    for (const { operation } of operations()) {
      for (const response of Object.values<any>(operation.responses))
        for (const link of Object.values<any>(response.links ?? {}))
          expect(ids.has(link.operationId), link.operationId).toBe(true);
    }
    expect(linksOf('/api/plugins', 'post').map((l) => l.operationId)).toEqual(
      expect.arrayContaining(['getPlugin', 'updatePlugin', 'deletePlugin']),
    );
    expect(linksOf('/api/plugins/{pluginId}/actions', 'post').map((l) => l.operationId)).toEqual(
      expect.arrayContaining(['getAction', 'updateAction', 'deleteAction']),
    );
    expect(linksOf('/conversations', 'post').map((l) => l.operationId)).toEqual(
      expect.arrayContaining(['getConversation', 'sendMessage']),
    );
  });

  test('the messaging operations name their own server; SSE streams are strings; one title per schema', () => {
    for (const { path, operation } of operations()) {
      if (path.startsWith('/conversations'))
        expect(operation.servers?.[0]?.url, path).toBe(emu.messagingUrl);
      else expect(operation.servers, path).toBeUndefined();
      for (const response of Object.values<any>(operation.responses)) {
        const stream = response.content?.['text/event-stream'];
        if (stream)
          expect(stream.schema, path).toMatchObject({
            type: 'string',
            description: expect.stringContaining('data:'),
          });
      }
    }
    // A title is a schema's name: no two different schemas share one (inline ones were hoisted into components).
    const titled = new Map<string, string>();
    const walk = (node: any): void => {
      if (Array.isArray(node)) {
        for (const item of node) walk(item);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      if (typeof node.title === 'string' && (node.type || node.properties)) {
        const text = JSON.stringify(node);
        expect(titled.get(node.title) ?? text, node.title).toBe(text);
        titled.set(node.title, text);
      }
      for (const [key, value] of Object.entries(node)) if (key !== 'x-event-data') walk(value);
    };
    walk(doc.paths);
    walk(doc.components.schemas);
    const importBody =
      doc.paths['/_emulator/import'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(importBody)).not.toContain('"title":"StoredRecord"');
  });

  test('webhooks declare their three signed headers, the signature scheme, their security and the challenge answer', () => {
    expect(doc.components.securitySchemes.webhookSignature).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'webhook-signature',
    });
    expect(doc.components.securitySchemes.webhookSignature.description).toMatch(
      /HMAC-SHA256.*<webhook-id>\.<webhook-timestamp>\.<raw body>/,
    );
    for (const [kind, item] of Object.entries<any>(doc.webhooks)) {
      expect(
        item.post.parameters.map((p: any) => [p.in, p.name, p.required]),
        kind,
      ).toEqual([
        ['header', 'webhook-id', true],
        ['header', 'webhook-timestamp', true],
        ['header', 'webhook-signature', true],
      ]);
      expect(item.post.security).toEqual([{ webhookSignature: [] }]);
      expect(item.post.operationId).toMatch(/^on[A-Z]/);
    }
    const answer = doc.webhooks.WEBHOOK_CHALLENGE.post.responses['200'].content;
    expect(answer['application/json'].schema).toMatchObject({ required: ['challenge'] });
    expect(answer['text/plain'].schema.type).toBe('string');
  });
});
