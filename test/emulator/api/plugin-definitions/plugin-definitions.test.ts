import { beforeAll, describe, expect, test } from 'vitest';
import { TOKENS, useMatrixEmulator } from '../../../kit/matrix-emulator.js';
import { expectError, expectOk, expectValidationError } from '../../../kit/envelope.js';

const emulator = useMatrixEmulator();
const call = (...args: Parameters<(typeof emulator)['current']['call']>) =>
  emulator.current.call(...args);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const kinds = [
  {
    kind: 'actions',
    segment: 'actions' as const,
    schemaFields: ['argsSchema', 'returnSchema'],
    sample: {
      name: 'lookup',
      title: 'Look up',
      description: 'Finds a record',
      argsSchema: { type: 'object', properties: { q: { type: 'string' } } },
      returnSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'array',
        prefixItems: [{ type: 'string' }],
      },
    },
  },
  {
    kind: 'external events',
    segment: 'external-events' as const,
    schemaFields: ['payloadSchema'],
    sample: {
      name: 'ticket.created',
      title: 'Ticket created',
      description: 'A ticket was opened in the helpdesk',
      payloadSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        required: ['ticketId'],
      },
    },
  },
];

describe.each(kinds)('plugin $kind', ({ segment, schemaFields, sample }) => {
  let pluginId = '';
  let base = '';
  beforeAll(async () => {
    pluginId = (await emulator.current.createPlugin()).id;
    base = `/api/plugins/${pluginId}/${segment}`;
  });

  test('POST creates one (MEMBER): 201 with id, pluginId, the request fields and timestamps; GET returns it', async () => {
    const data = expectOk(await call('POST', base, { token: TOKENS.member, body: sample }), 201);
    expect(data).toMatchObject({ ...sample, pluginId });
    expect(typeof data.id).toBe('string');
    expect(data.createdAt).toMatch(ISO);
    expect(data.updatedAt).toBe(data.createdAt);
    expect(
      expectOk(
        await call('GET', `${base}/${encodeURIComponent(sample.name)}`, { token: TOKENS.viewer }),
      ),
    ).toEqual(data);
  });

  test('a duplicate name in the same plugin is 409; another plugin may use it', async () => {
    const error = expectError(
      await call('POST', base, { token: TOKENS.owner, body: { name: sample.name } }),
      409,
    );
    expect(error.message).toContain(sample.name);
    const other = await emulator.current.createPlugin();
    expectOk(
      await call('POST', `/api/plugins/${other.id}/${segment}`, {
        token: TOKENS.owner,
        body: { name: sample.name },
      }),
      201,
    );
  });

  test('GET lists the plugin own definitions only, with index pagination', async () => {
    await emulator.current.createDefinition(pluginId, segment, { name: 'second' });
    const response = await call('GET', base, { token: TOKENS.viewer });
    const data = expectOk(response);
    expect(data.map((d: any) => d.name).sort()).toEqual(['second', sample.name].sort());
    expect(data.every((d: any) => d.pluginId === pluginId)).toBe(true);
    expect(response.body.meta.pagination).toEqual({
      type: 'index',
      page: 1,
      limit: 20,
      total: 2,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });
  });

  test.each(schemaFields)('an invalid %s is a 400 with details under that field', async (field) => {
    const invalid = await call('POST', base, {
      token: TOKENS.owner,
      body: { name: `bad_${field}`, [field]: { type: 12 } },
    });
    const details = expectValidationError(invalid, [field, 'type']);
    expect(details[0].code).toBe('invalid_schema');
    const invalid2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: 5 };
    expectValidationError(
      await call('POST', base, {
        token: TOKENS.owner,
        body: { name: `bad2_${field}`, [field]: invalid2020 },
      }),
      [field, 'prefixItems'],
    );
    expectValidationError(
      await call('PUT', `${base}/${encodeURIComponent(sample.name)}`, {
        token: TOKENS.owner,
        body: { [field]: { type: 12 } },
      }),
      [field, 'type'],
    );
    // Nothing was created or changed.
    expectError(await call('GET', `${base}/bad_${field}`, { token: TOKENS.owner }), 404);
    expect(
      expectOk(
        await call('GET', `${base}/${encodeURIComponent(sample.name)}`, { token: TOKENS.owner }),
      )[field],
    ).toEqual((sample as any)[field]);
  });

  test.each([
    ['no name', { title: 'x' }, ['name']],
    ['an empty name', { name: '' }, ['name']],
    ['a name with a space (names are used in paths)', { name: 'two words' }, ['name']],
    ['an unknown field', { name: 'ok_name', color: 'red' }, ['color']],
    ['pluginId in the body', { name: 'ok_name', pluginId: 'plg_x' }, ['pluginId']],
    [
      'a schema that is not an object',
      { name: 'ok_name', [schemaFields[0]]: 'string' },
      [schemaFields[0]],
    ],
  ])('POST refuses %s', async (_name, body, path) => {
    expectValidationError(
      await call('POST', base, { token: TOKENS.owner, body }),
      path as string[],
    );
  });

  test('PUT updates title and description (MEMBER) and moves updatedAt; VIEWER gets 403', async () => {
    const created = await emulator.current.createDefinition(pluginId, segment, {
      name: 'to_update',
      title: 'Old',
    });
    await new Promise((r) => setTimeout(r, 5));
    expectError(
      await call('PUT', `${base}/to_update`, { token: TOKENS.viewer, body: { title: 'x' } }),
      403,
    );
    const data = expectOk(
      await call('PUT', `${base}/to_update`, {
        token: TOKENS.member,
        body: { title: 'New', description: 'Now described' },
      }),
    );
    expect(data).toMatchObject({
      id: created.id,
      pluginId,
      name: 'to_update',
      title: 'New',
      description: 'Now described',
      createdAt: created.createdAt,
    });
    expect(data.updatedAt > created.updatedAt).toBe(true);
  });

  test('PUT refuses an empty body, unknown fields, and a rename onto an existing name (409)', async () => {
    await emulator.current.createDefinition(pluginId, segment, { name: 'rename_me' });
    expectValidationError(
      await call('PUT', `${base}/rename_me`, { token: TOKENS.owner, body: {} }),
      [],
    );
    expectValidationError(
      await call('PUT', `${base}/rename_me`, { token: TOKENS.owner, body: { color: 'red' } }),
      ['color'],
    );
    expectError(
      await call('PUT', `${base}/rename_me`, { token: TOKENS.owner, body: { name: sample.name } }),
      409,
    );
    expect(
      expectOk(
        await call('PUT', `${base}/rename_me`, { token: TOKENS.owner, body: { name: 'renamed' } }),
      ).name,
    ).toBe('renamed');
    expectError(await call('GET', `${base}/rename_me`, { token: TOKENS.owner }), 404);
  });

  test('DELETE is OWNER only; afterwards the name is free again', async () => {
    await emulator.current.createDefinition(pluginId, segment, { name: 'doomed' });
    expectError(await call('DELETE', `${base}/doomed`, { token: TOKENS.member }), 403);
    expect(expectOk(await call('DELETE', `${base}/doomed`, { token: TOKENS.owner }))).toMatchObject(
      { name: 'doomed', deleted: true },
    );
    expectError(await call('GET', `${base}/doomed`, { token: TOKENS.owner }), 404);
    expectError(await call('DELETE', `${base}/doomed`, { token: TOKENS.owner }), 404);
    expectOk(await call('POST', base, { token: TOKENS.owner, body: { name: 'doomed' } }), 201);
  });

  test('unknown plugin or name is 404; a private plugin definitions are 404 to non-members, a public one readable', async () => {
    expectError(
      await call('GET', `/api/plugins/plg_missing/${segment}`, { token: TOKENS.owner }),
      404,
    );
    expectError(await call('GET', `${base}/no_such_name`, { token: TOKENS.owner }), 404);
    expectError(await call('GET', base, { token: TOKENS.outsider }), 404);
    expectError(
      await call('GET', `${base}/${encodeURIComponent(sample.name)}`, { token: TOKENS.outsider }),
      404,
    );
    expectError(
      await call('POST', base, { token: TOKENS.outsider, body: { name: 'sneaky' } }),
      404,
    );
    const pub = await emulator.current.createPlugin({ isPublic: true });
    await emulator.current.createDefinition(pub.id, segment, { name: 'visible' });
    expect(
      expectOk(
        await call('GET', `/api/plugins/${pub.id}/${segment}`, { token: TOKENS.outsider }),
      ).map((d: any) => d.name),
    ).toEqual(['visible']);
    expectOk(
      await call('GET', `/api/plugins/${pub.id}/${segment}/visible`, { token: TOKENS.outsider }),
    );
    expectError(
      await call('POST', `/api/plugins/${pub.id}/${segment}`, {
        token: TOKENS.outsider,
        body: { name: 'sneaky' },
      }),
      403,
    );
  });
});
