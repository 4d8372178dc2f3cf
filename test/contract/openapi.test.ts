import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { Emulator } from '../../emulator/index.js';
import { EVENT_KINDS } from '#contract';
import { admin, api, cli, emulator, tempDir } from '../kit/index.js';
import { contractViolations } from '../../emulator/openapi/contract-check.js';
import { routesDocumentBuilds } from '../../emulator/openapi/document.js';
import { emulatorInternals } from '../../emulator/internals.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ inMemory: true, port: 0, messagingPort: 0 });
});
const documentOf = async (target: Emulator) =>
  (await api(target, { token: null }).get('/_emulator/openapi.json')).body;

/**
 * Operations whose route modules other work in progress gives their schemas (#16: deliveries,
 * admin events, admin characters). Empty this once those land: the test then covers them too.
 */
const PENDING = new Set<string>([
  'GET /_emulator/deliveries/stream',
  'POST /_emulator/deliveries/{deliveryId}/redeliver',
  'GET /_emulator/characters',
  'POST /_emulator/characters',
  'GET /_emulator/characters/{characterId}',
  'PATCH /_emulator/characters/{characterId}',
  'POST /_emulator/events',
  'GET /_emulator/instances',
]);

const operations = (doc: any) =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );

describe('the OpenAPI document', () => {
  test('GET /_emulator/openapi.json needs no credential and is a valid OpenAPI 3.1 document of all three APIs', async () => {
    const answer = await api(emu, { token: null }).get('/_emulator/openapi.json');
    expect(answer.status).toBe(200);
    const doc = answer.body;
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc));
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/api/plugins/{pluginId}');
    expect(paths).toContain('/conversations/{conversationId}/messages');
    expect(paths).toContain('/_emulator/deliveries');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'adminToken',
      'dashboardSession',
      'managementToken',
      'messagingApiKey',
      'webhookSignature',
    ]);
    const security = (path: string, method: string) => doc.paths[path][method].security;
    expect(security('/api/plugins/{pluginId}', 'get')).toEqual([{ managementToken: [] }]);
    expect(security('/api/plugins/marketplace', 'get')).toEqual([]);
    expect(security('/conversations', 'post')).toEqual([{ messagingApiKey: [] }]);
    expect(security('/_emulator/deliveries', 'get')).toEqual([
      { adminToken: [] },
      { dashboardSession: [] },
    ]);
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_KINDS]);
    expect(
      doc.webhooks.PLUGIN_INSTALLED.post.requestBody.content['application/json'].schema.properties
        .data.properties,
    ).toHaveProperty('accessToken');
  });

  test('the plugin routes declare their responses, errors included, from the contract', async () => {
    const doc = await documentOf(emu);
    const get = doc.paths['/api/plugins/{pluginId}'].get;
    expect(Object.keys(get.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
    ]);
    expect(get.responses['200'].content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/Plugin',
    });
    expect(doc.components.schemas.Plugin.required).toContain('webhookUrlIsVerified');
    expect(get.responses['404'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ErrorEnvelope',
    );
    const marketplace = doc.paths['/api/plugins/marketplace'].get;
    expect(marketplace.parameters.map((p: any) => p.name).slice(0, 6)).toEqual([
      '@page',
      '@limit',
      '@cursor',
      '@sortBy',
      '@sortOrder',
      '@search',
    ]);
    // Then a filter per field: the marketplace filters by type, tags...
    expect(marketplace.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['type', 'tags', 'isPublic']),
    );
    const create = doc.paths['/api/plugins'].post;
    expect(create.requestBody.content['application/json'].example).toMatchObject({
      name: 'Weather',
      type: 'EVENT_HANDLER',
    });
  });

  test('every operation declares a 2xx response schema and its error responses, all from the contract', async () => {
    const doc = await documentOf(emu);
    const missing: string[] = [];
    for (const { path, method, operation } of operations(doc)) {
      const name = `${method.toUpperCase()} ${path}`;
      if (PENDING.has(name)) continue;
      const responses = Object.entries<any>(operation.responses ?? {});
      const success = responses.filter(
        ([code, r]) =>
          /^2\d\d$/.test(code) && Object.values<any>(r.content ?? {}).some((media) => media.schema),
      );
      if (success.length === 0) missing.push(`${name}: no 2xx response schema`);
      const errors = responses.filter(([code]) => /^[45]\d\d$/.test(code));
      if (errors.length === 0) missing.push(`${name}: no error responses`);
      for (const [code, r] of errors) {
        if (r.content?.['application/json']?.schema?.$ref !== '#/components/schemas/ErrorEnvelope')
          missing.push(`${name}: ${code} is not the error envelope`);
      }
      // Every credentialed route can refuse its caller; the admin guard refuses CORS-simple bodies on state changes.
      if (operation.security.length > 0 && !errors.some(([code]) => code === '401'))
        missing.push(`${name}: no 401`);
      if (
        path.startsWith('/_emulator') &&
        method !== 'get' &&
        operation.security.length > 0 &&
        !errors.some(([code]) => code === '415')
      )
        missing.push(`${name}: no 415`);
    }
    expect(missing).toEqual([]);
  });

  test('every request body of a contract schema has an example', async () => {
    const doc = await documentOf(emu);
    const withBody = operations(doc).filter(({ operation }) => operation.requestBody);
    expect(withBody.length).toBeGreaterThan(5);
    const contractBodies = withBody.filter(
      ({ operation }) => operation.requestBody.content['application/json'].schema.examples,
    );
    for (const { path, method, operation } of contractBodies)
      expect(
        operation.requestBody.content['application/json'].example,
        `${method} ${path}`,
      ).toBeDefined();
  });

  test('is built once per process: a second emulator serves the same document at its own URLs without building it again', async () => {
    const first = await documentOf(emu);
    const builds = routesDocumentBuilds();
    expect(builds).toBeGreaterThanOrEqual(1);
    const other = await emulator({
      inMemory: true,
      faults: 'duplicate=0.1',
      log: () => undefined,
      messaging: { packetSize: 2 },
    });
    const second = await documentOf(other);
    expect(routesDocumentBuilds()).toBe(builds);
    expect(second.servers).toEqual([{ url: other.url, description: 'management and admin API' }]);
    expect(second.paths['/conversations'].servers).toEqual([
      {
        url: other.messagingUrl,
        description: 'messaging API (its own server, not the management one)',
      },
    ]);
    expect(first.paths['/conversations'].servers).toEqual([
      {
        url: emu.messagingUrl,
        description: 'messaging API (its own server, not the management one)',
      },
    ]);
    const placed = (doc: any, target: Emulator) =>
      JSON.stringify(doc)
        .replaceAll(target.messagingUrl, 'MESSAGING')
        .replaceAll(target.url, 'MANAGEMENT');
    expect(placed(second, other)).toBe(placed(first, emu));
  });

  test('`plugsmith emulator openapi --output` writes the same document without a running emulator', async () => {
    // In this process: what is under test is the document the command writes, not the process.
    const file = join(await tempDir(), 'openapi.json');
    const result = await (await cli()).run(['emulator', 'openapi', '--output', file]);
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    await SwaggerParser.validate(structuredClone(doc));
    expect(Object.keys(doc.paths).sort()).toEqual(
      Object.keys((await documentOf(emu)).paths).sort(),
    );
    // The emulator started for the purpose listened on throwaway ports: the document names the default ones.
    expect(doc.servers[0].url).toBe('http://127.0.0.1:4010');
    expect(doc.paths['/conversations'].post.servers[0].url).toBe('http://127.0.0.1:4011');
  });
});

describe('responses are written from their schema', () => {
  test('a stored field the contract does not name never leaves the server', async () => {
    const exported = (await admin(emu).get('/_emulator/export')).body.data;
    const now = new Date().toISOString();
    const org = exported.collections.orgs[0];
    exported.collections.plugins = [
      {
        id: 'plg_internal',
        orgId: org.id,
        name: 'Internal',
        description: '',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        tags: [],
        inputsSchema: {},
        isPublic: true,
        webhookUrl: null,
        webhookUrlIsVerified: false,
        webhookSecret: 'whsec_x',
        createdAt: now,
        updatedAt: now,
        internalFlag: 'must not leak',
        secretHash: 'must not leak either',
      },
    ];
    expect((await admin(emu).post('/_emulator/import', exported)).status).toBe(200);
    // Tokens are exported as hashes, so the seed's token still works after the import.
    const answer = await api(emu).get('/api/plugins/plg_internal');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.name).toBe('Internal');
    expect(answer.body.data).not.toHaveProperty('internalFlag');
    expect(answer.body.data).not.toHaveProperty('secretHash');
  });
});

describe('the contract check', () => {
  /** Plants a plugin whose type the contract does not know (import refuses such a record: it checks shapes). */
  async function plantBadPlugin(target: Emulator) {
    const now = new Date().toISOString();
    const orgId = emulatorInternals(target).db.orgs.values().next().value!.id;
    await emulatorInternals(target).db.plugins.put({
      id: 'plg_bad',
      orgId,
      name: 'Bad',
      description: '',
      type: 'NOT_A_TYPE',
      events: [],
      scopes: [],
      tags: [],
      inputsSchema: {},
      isPublic: true,
      webhookUrl: null,
      webhookUrlIsVerified: false,
      webhookSecret: 'whsec_x',
      createdAt: now,
      updatedAt: now,
    } as never);
  }

  test('records a response whose body does not match the document', async () => {
    await plantBadPlugin(emu);
    const list = contractViolations();
    const before = list.length;
    expect((await api(emu).get('/api/plugins/plg_bad')).status).toBe(200);
    const found = list.splice(before);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ method: 'GET', route: '/api/plugins/:pluginId', status: 200 });
    expect(found[0]!.problem).toContain('/data/type');
  });

  test('is an option of startEmulator: off, an emulator records nothing (the test setup turns the default on)', async () => {
    const unchecked = await emulator({ inMemory: true, contractCheck: false });
    await plantBadPlugin(unchecked);
    const list = contractViolations();
    const before = list.length;
    expect((await api(unchecked).get('/api/plugins/plg_bad')).status).toBe(200);
    expect(list.slice(before)).toEqual([]);
  });
});
