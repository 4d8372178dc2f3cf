import { beforeAll, describe, expect, test } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { request } from 'undici';
import type { Emulator } from '../../emulator/index.js';
import { call } from '../kit/http.js';
import { emulator } from '../kit/index.js';

// What other tools found in the OpenAPI document and the answers behind it (issue 35): patterns a
// Perl client reads otherwise, an SSE stream without its events, a body declared required that is
// optional, filters looser or stricter than declared, error details that misreport, and operations
// without a description. Each against a real emulator on real ports.

let emu: Emulator;
let doc: any;

beforeAll(async () => {
  emu = await emulator({ inMemory: true, port: 0, messagingPort: 0 });
  doc = (await call(emu.url, 'GET', '/_emulator/openapi.json')).body;
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation: item[method],
    })),
  );

/** Every value of `key` anywhere under `node`, with where it is. */
function valuesOf(node: unknown, key: string, at = '#'): Array<[string, unknown]> {
  if (Array.isArray(node)) return node.flatMap((item, i) => valuesOf(item, key, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, value]) => [
    ...(k === key ? [[`${at}/${k}`, value] as [string, unknown]] : []),
    ...valuesOf(value, key, `${at}/${k}`),
  ]);
}

const owner = () => ({ token: emu.token! });

describe('patterns every regex engine reads alike', () => {
  test('no pattern in the document writes a \\u escape (Perl reads \\u otherwise); control characters are \\x00-\\x1f\\x7f', () => {
    const patterns = valuesOf(doc, 'pattern').filter(([, p]) => typeof p === 'string');
    expect(patterns.length).toBeGreaterThan(5);
    expect(patterns.filter(([, p]) => String(p).includes('\\u'))).toEqual([]);
    const fileName = valuesOf(doc.components.schemas, 'fileName').find(
      ([, s]: [string, any]) => s?.pattern,
    )?.[1] as { pattern: string };
    expect(fileName.pattern).toContain('\\x00-\\x1f\\x7f');
  });

  test('the upload name patterns still refuse control characters and take other names', async () => {
    const upload = (fileName: string, folder?: string) =>
      call(emu.url, 'POST', '/api/generate-upload-url', {
        ...owner(),
        body: { orgId: emu.orgId, files: [{ fileName }], ...(folder ? { folder } : {}) },
      });
    for (const bad of ['a\u0000b', 'tab\there', 'del\u007f', 'esc\u001b']) {
      expect((await upload(bad)).status, JSON.stringify(bad)).toBe(400);
      expect((await upload('ok.txt', `dir/${bad}`)).status, JSON.stringify(bad)).toBe(400);
    }
    for (const good of ['café.txt', '\u00a0nbsp', 'x\u0080y', '..hidden', 'a b.pdf']) {
      expect((await upload(good)).status, JSON.stringify(good)).toBe(201);
    }
  });
});

describe('the conversation stream', () => {
  test('its events are described (x-event-data), and it promises no `id:` line, as none is sent', async () => {
    const response = doc.paths['/conversations/{conversationId}/events'].get.responses['200'];
    const stream = response.content['text/event-stream'];
    expect(stream['x-event-data']).toBeDefined();
    expect(stream.schema.description).not.toMatch(/made of `id: <id>`/);
    expect(response.description).toMatch(/no `id:` line/);

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile({ ...stream['x-event-data'], components: doc.components });

    const auth = { authorization: `Bearer ${emu.apiKey}` };
    const created = await call(emu.messagingUrl, 'POST', '/conversations', {
      headers: auth,
      body: { characterId: 'char_nova' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    const events = await request(`${emu.messagingUrl}/conversations/${id}/events`, {
      headers: auth,
    });
    expect(events.statusCode).toBe(200);
    let text = '';
    const decoder = new TextDecoder();
    const sent = call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      headers: auth,
      body: { content: 'hello' },
    });
    for await (const chunk of events.body) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('"isStreaming":false')) break;
    }
    events.body.destroy();
    expect((await sent).status).toBe(201);
    const lines = text.split('\n');
    expect(lines.filter((line) => line.startsWith('id:'))).toEqual([]);
    const data = lines.filter((line) => line.startsWith('data: '));
    expect(data.length).toBeGreaterThan(1);
    for (const line of data) {
      const event = JSON.parse(line.slice('data: '.length));
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  test('every SSE stream of the document describes its events', () => {
    const streams = operations().flatMap(({ name, operation }) =>
      Object.values<any>(operation.responses)
        .map((r) => r.content?.['text/event-stream'])
        .filter(Boolean)
        .map((media) => [name, media] as const),
    );
    expect(streams.length).toBe(3);
    for (const [name, media] of streams) expect(media['x-event-data'], name).toBeDefined();
  });
});

describe('request bodies', () => {
  test('POST …/webhook-secret/rotate declares its body optional, and a rotation without one works', async () => {
    const rotate = doc.paths['/api/plugins/{pluginId}/webhook-secret/rotate'].post;
    expect(rotate.requestBody.required).toBe(false);
    const plugin = await call(emu.url, 'POST', '/api/plugins', {
      ...owner(),
      body: { name: 'rotating', type: 'APP', orgId: emu.orgId },
    });
    expect(plugin.status, JSON.stringify(plugin.body)).toBe(201);
    const rotated = await call(
      emu.url,
      'POST',
      `/api/plugins/${plugin.body.data.id}/webhook-secret/rotate`,
      owner(),
    );
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    // Every other body stays required.
    const optional = operations().filter(
      ({ operation }) => operation.requestBody?.required === false,
    );
    expect(optional.map((o) => o.name)).toEqual([
      'POST /api/plugins/{pluginId}/webhook-secret/rotate',
    ]);
  });
});

describe('list filters', () => {
  const list = (query: Record<string, string>) =>
    call(emu.url, 'GET', '/api', { ...owner(), query });
  const filter = (name: string) =>
    doc.paths['/api'].get.parameters.find((p: any) => p.in === 'query' && p.name === name);

  test('an empty item in a comma list (`a,,b`, a trailing comma) is a 400 naming the parameter', async () => {
    for (const id of ['a,,b', 'a,', ',a']) {
      const answer = await list({ id });
      expect(answer.status, id).toBe(400);
      expect(answer.body.error.details, id).toEqual([
        expect.objectContaining({
          path: ['id'],
          message: expect.stringContaining('empty item'),
        }),
      ]);
    }
    expect((await list({ '@sortBy': 'fileName,,createdAt' })).status).toBe(400);
    expect((await list({ id: 'a,b' })).status).toBe(200);
  });

  /** A filter's value schema: the filter is one such value or a list of them (`anyOf`), the same on the wire. */
  const itemOf = (parameter: any) => {
    const [one, list] = parameter.schema.anyOf;
    expect(list).toMatchObject({ type: 'array', items: one });
    return one;
  };

  test('a number filter takes what the document calls a number, exponents included', async () => {
    expect(itemOf(filter('fileSize')).type).toBe('number');
    for (const fileSize of ['1e3', '1E3', '1.5e-7', '1000', '-1', '2.5', '1e+3'])
      expect((await list({ fileSize })).status, fileSize).toBe(200);
    for (const fileSize of ['0x10', 'Infinity', 'NaN', '1e', '.5', '1,,2', 'ten']) {
      const answer = await list({ fileSize });
      expect(answer.status, fileSize).toBe(400);
      expect(answer.body.error.details[0].path).toEqual(['fileSize']);
    }
  });

  test('status and parentType filters declare their enum and refuse other values with a 400', async () => {
    expect(itemOf(filter('status')).enum).toEqual([
      'UPLOADED',
      'FAILED',
      'PROCESSING',
      'COMPLETED',
    ]);
    expect(itemOf(filter('parentType')).enum).toEqual(['ORG', 'CHARACTER', 'KNOWLEDGE', 'AGENT']);
    expect((await list({ status: 'UPLOADED,FAILED' })).status).toBe(200);
    expect((await list({ parentType: 'ORG' })).status).toBe(200);
    for (const [name, value] of [
      ['status', 'DONE'],
      ['status', 'uploaded'],
      ['parentType', 'ORG,USER'],
    ]) {
      const answer = await list({ [name]: value });
      expect(answer.status, `${name}=${value}`).toBe(400);
      expect(answer.body.error.details[0]).toMatchObject({
        path: [name],
        code: 'invalid_enum_value',
        message: expect.stringContaining('must be one of'),
      });
    }
    const deliveries = await call(emu.url, 'GET', '/_emulator/deliveries', {
      headers: emu.adminHeaders,
      query: { status: 'bogus' },
    });
    expect(deliveries.status).toBe(400);
  });

  test('GET /_emulator/deliveries declares the filters and the integer paging it applies (issue 45)', async () => {
    const parameters = doc.paths['/_emulator/deliveries'].get.parameters;
    const declared = (name: string) =>
      parameters.find((p: any) => p.in === 'query' && p.name === name);
    expect(declared('@page').schema.type).toBe('integer');
    expect(declared('@limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    for (const name of ['pluginId', 'type', 'status', 'scenario', '@failedOnce', '@since'])
      expect(declared(name), name).toBeDefined();
    expect(declared('status').schema.anyOf[0].enum).toEqual([
      'pending',
      'delivered',
      'failed',
      'exhausted',
    ]);
    for (const [name, value] of [
      ['status', 'bogus'],
      ['@limit', '0'],
      ['@minAttempts', 'many'],
    ]) {
      const answer = await call(emu.url, 'GET', '/_emulator/deliveries', {
        headers: emu.adminHeaders,
        query: { [name]: value },
      });
      expect(answer.status, `${name}=${value}`).toBe(400);
      expect(answer.body.error.details[0].path).toEqual([name]);
    }
    const filtered = await call(emu.url, 'GET', '/_emulator/deliveries', {
      headers: emu.adminHeaders,
      query: { status: 'failed,exhausted', '@limit': '20', '@page': '1' },
    });
    expect(filtered.status).toBe(200);
  });
});

describe('error details', () => {
  test('FAILED with an empty errorMessage reports the empty string received and asks for a reason', async () => {
    const made = await call(emu.url, 'POST', '/api/generate-upload-url', {
      ...owner(),
      body: { orgId: emu.orgId, files: [{ fileName: 'empty-reason.txt' }] },
    });
    const fileId = made.body.data.files[0].fileRecord.id;
    const empty = await call(emu.url, 'PATCH', '/api/status', {
      ...owner(),
      body: { fileId, status: 'FAILED', errorMessage: '' },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details).toEqual([
      expect.objectContaining({
        path: ['errorMessage'],
        code: 'too_small',
        received: '',
        message: expect.stringContaining('must not be empty'),
      }),
    ]);
    const absent = await call(emu.url, 'PATCH', '/api/status', {
      ...owner(),
      body: { fileId, status: 'FAILED' },
    });
    expect(absent.body.error.details[0]).toMatchObject({
      code: 'invalid_type',
      received: 'undefined',
    });
  });

  test('expiresIn=0 is too_small, expiresIn over 7 days too_big', async () => {
    const codeOf = async (expiresIn: string) =>
      (
        await call(emu.url, 'GET', '/api/access/file_none', {
          ...owner(),
          query: { expiresIn },
        })
      ).body.error.details[0].code;
    expect(await codeOf('0')).toBe('too_small');
    expect(await codeOf('604801')).toBe('too_big');
  });
});

describe('decisions where the spec is loose', () => {
  test('100 MB is 100,000,000 bytes (SI), declared and enforced: 10^8 is taken, one byte more refused', async () => {
    const spec = valuesOf(doc.components.schemas, 'fileSize').find(
      ([, s]: [string, any]) => s?.maximum !== undefined,
    )?.[1] as { maximum: number };
    expect(spec.maximum).toBe(100_000_000);
    const declare = (fileSize: number) =>
      call(emu.url, 'POST', '/api/generate-upload-url', {
        ...owner(),
        body: { orgId: emu.orgId, files: [{ fileName: `size-${fileSize}.bin`, fileSize }] },
      });
    expect((await declare(100_000_000)).status).toBe(201);
    const over = await declare(100_000_001);
    expect(over.status).toBe(400);
    expect(over.body.error.details[0].path).toEqual(['files', '0', 'fileSize']);
    // 100 MiB, which the emulator took before, is over.
    expect((await declare(100 * 1024 * 1024)).status).toBe(400);
  });
});

describe('extensions of the spec', () => {
  test("the upload request's orgId is marked as an extension (x-plugsmith-extension) and says so", async () => {
    const request = doc.components.schemas.UploadUrlRequest;
    expect(request.properties.orgId['x-plugsmith-extension']).toBe(true);
    expect(request.properties.orgId.description).toMatch(/^An extension of the emulator/);
    // Only fields the spec lacks are marked.
    expect(request.properties.folder['x-plugsmith-extension']).toBeUndefined();
    const made = await call(emu.url, 'POST', '/api/generate-upload-url', {
      ...owner(),
      body: { orgId: emu.orgId, files: [{ fileName: 'with-org.txt' }] },
    });
    expect(made.status).toBe(201);
    expect(made.body.data.files[0].fileRecord.orgId).toBe(emu.orgId);
  });

  test('contentDelta comes with each CHARACTER_MESSAGE_SENT event, never on a polled message (a poll sees no packet)', async () => {
    const eventData =
      doc.paths['/conversations/{conversationId}/events'].get.responses['200'].content[
        'text/event-stream'
      ]['x-event-data'];
    const event = eventData.$ref
      ? doc.components.schemas[eventData.$ref.split('/').pop()]
      : eventData;
    expect(Object.keys(event.properties)).toEqual(['message', 'contentDelta']);
    expect(doc.components.schemas.Message.properties.contentDelta).toBeUndefined();
    const auth = { authorization: `Bearer ${emu.apiKey}` };
    const created = await call(emu.messagingUrl, 'POST', '/conversations', {
      headers: auth,
      body: { characterId: 'char_nova' },
    });
    const id = created.body.data.id;
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      headers: auth,
      body: { content: 'hello' },
    });
    const listed = await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, {
      headers: auth,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThan(0);
    for (const message of listed.body.data) expect(message).not.toHaveProperty('contentDelta');
  });
});

describe('operation descriptions and links', () => {
  test('every operation has a description of one or two sentences beyond its summary', () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(80);
    for (const { name, operation } of all) {
      expect(typeof operation.description, name).toBe('string');
      expect(operation.description.length, name).toBeGreaterThan(operation.summary.length);
      expect(operation.description, name).not.toBe(operation.summary);
      const sentences = operation.description.split(/[.!?](?:\s|$)/).filter(Boolean);
      expect(sentences.length, `${name}: ${operation.description}`).toBeLessThanOrEqual(2);
    }
  });

  test("each link's description says what the linked operation does with what was made", () => {
    const links = operations().flatMap(({ name, operation }) =>
      Object.values<any>(operation.responses).flatMap((r) =>
        Object.values<any>(r.links ?? {}).map((link) => [name, link] as const),
      ),
    );
    expect(links.length).toBeGreaterThan(20);
    const describedAs = (from: string, operationId: string) =>
      links.find(([name, link]) => name === from && link.operationId === operationId)?.[1]
        .description;
    expect(describedAs('POST /api/plugins', 'listActions')).toBe(
      'List the actions of the plugin just made',
    );
    expect(describedAs('POST /api/plugins', 'createAction')).toBe(
      'Create an action on the plugin just made',
    );
    expect(describedAs('POST /api/plugins', 'verifyWebhook')).toBe(
      'Send the WEBHOOK_CHALLENGE to the webhook URL of the plugin just made',
    );
    expect(describedAs('POST /api/repositories', 'installDataProvider')).toBe(
      'Install a plugin as a data provider on the repository just made',
    );
    expect(describedAs('POST /conversations', 'sendMessage')).toBe(
      "Send a user's message into the conversation just made",
    );
    for (const [name, link] of links)
      expect(link.description, `${name} → ${link.operationId}`).toMatch(/^[A-Z].* just made$/);
  });
});
