import { describe, expect, test } from 'vitest';
import {
  CALLERS,
  ORG,
  OTHER_ORG,
  TOKENS,
  useMatrixEmulator,
} from '../../../kit/matrix-emulator.js';
import { expectError, expectOk, expectValidationError } from '../../../kit/envelope.js';
import { emulatorInternals } from '../../../../emulator/internals.js';

const emulator = useMatrixEmulator();
const call = (...args: Parameters<(typeof emulator)['current']['call']>) =>
  emulator.current.call(...args);

/** A request body with every plugin field the spec lists (but orgId). */
const fullBody = (name = 'Weather') => ({
  name,
  description: 'Forecasts for agents',
  events: ['PLUGIN_INSTALLED', 'AGENT_MESSAGE_RECEIVED'],
  inputsSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  isPublic: true,
  scopes: ['AGENT_MESSAGE_WRITE'],
  tags: ['weather', 'api'],
  type: 'EVENT_HANDLER',
  webhookUrl: 'https://example.com/hooks/weather',
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectCreatedPlugin(data: any, body: Record<string, unknown>, orgId: string) {
  expect(typeof data.id).toBe('string');
  expect(data).toMatchObject({ ...body, orgId, webhookUrlIsVerified: false });
  expect(data.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  expect(data.createdAt).toMatch(ISO);
  expect(data.updatedAt).toBe(data.createdAt);
}

describe('creating plugins', () => {
  test('POST /api/plugins returns 201 with id, every request field, timestamps, an unverified webhook and its secret', async () => {
    const body = { ...fullBody(), orgId: ORG };
    const data = expectOk(await call('POST', '/api/plugins', { token: TOKENS.member, body }), 201);
    expectCreatedPlugin(data, body, ORG);
    // Stored as returned.
    expect(expectOk(await call('GET', `/api/plugins/${data.id}`, { token: TOKENS.owner }))).toEqual(
      data,
    );
  });

  test('POST /api/orgs/:orgId/plugins takes the org from the path', async () => {
    const body = fullBody('Path plugin');
    const data = expectOk(
      await call('POST', `/api/orgs/${ORG}/plugins`, { token: TOKENS.owner, body }),
      201,
    );
    expectCreatedPlugin(data, body, ORG);
  });

  test('each plugin gets its own id and webhook secret', async () => {
    const a = await emulator.current.createPlugin();
    const b = await emulator.current.createPlugin();
    expect(a.id).not.toBe(b.id);
    expect(a.webhookSecret).not.toBe(b.webhookSecret);
  });

  test('orgId in the body of the org-path variant is refused with details', async () => {
    const response = await call('POST', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      body: { ...fullBody(), orgId: ORG },
    });
    const details = expectValidationError(response, ['orgId']);
    expect(details[0].received).toBe(ORG);
  });

  test('POST /api/plugins needs orgId; an unknown org is 404', async () => {
    expectValidationError(
      await call('POST', '/api/plugins', { token: TOKENS.owner, body: fullBody() }),
      ['orgId'],
    );
    expectError(
      await call('POST', '/api/plugins', {
        token: TOKENS.owner,
        body: { ...fullBody(), orgId: 'org_nope' },
      }),
      404,
    );
    expectError(
      await call('POST', '/api/orgs/org_nope/plugins', { token: TOKENS.owner, body: fullBody() }),
      404,
    );
  });

  test.each([
    ['an unknown field', { color: 'red' }, ['color']],
    ['a bad type', { type: 'WIDGET' }, ['type']],
    ['an unknown event kind', { events: ['PLUGIN_INSTALLED', 'SOMETHING'] }, ['events', '1']],
    ['an unknown scope', { scopes: ['EVERYTHING'] }, ['scopes', '0']],
    ['a non-URL webhookUrl', { webhookUrl: 'not a url' }, ['webhookUrl']],
    ['a non-http webhookUrl', { webhookUrl: 'ftp://example.com/x' }, ['webhookUrl']],
    ['isPublic as a string', { isPublic: 'true' }, ['isPublic']],
    ['tags not an array', { tags: 'weather' }, ['tags']],
    ['an empty name', { name: '' }, ['name']],
    ['inputsSchema not an object', { inputsSchema: 'object' }, ['inputsSchema']],
    [
      'webhookUrlIsVerified set by the caller',
      { webhookUrlIsVerified: true },
      ['webhookUrlIsVerified'],
    ],
    ['webhookSecret set by the caller', { webhookSecret: 'whsec_mine' }, ['webhookSecret']],
  ])('%s is a 400 with details', async (_name, change, path) => {
    const response = await call('POST', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      body: { ...fullBody(), ...change },
    });
    expectValidationError(response, path as string[]);
  });

  test('name and type are required', async () => {
    expectValidationError(
      await call('POST', `/api/orgs/${ORG}/plugins`, {
        token: TOKENS.owner,
        body: { type: 'APP' },
      }),
      ['name'],
    );
    expectValidationError(
      await call('POST', `/api/orgs/${ORG}/plugins`, { token: TOKENS.owner, body: { name: 'x' } }),
      ['type'],
    );
  });
});

describe('inputsSchema is meta-validated with ajv', () => {
  const create = (inputsSchema: unknown) =>
    call('POST', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      body: { name: 'Schema test', type: 'APP', inputsSchema },
    });

  test.each([
    [
      'draft-07 without $schema',
      {
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1 } },
        additionalProperties: false,
      },
    ],
    [
      'draft-07 with $schema',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { a: { type: 'string' } },
        properties: { a: { $ref: '#/definitions/a' } },
      },
    ],
    [
      '2020-12',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'number' }],
        $defs: { x: { type: 'null' } },
      },
    ],
    ['a format', { type: 'string', format: 'email' }],
  ])('accepts a valid %s schema', async (_name, schema) => {
    const data = expectOk(await create(schema), 201);
    expect(data.inputsSchema).toEqual(schema);
  });

  test('refuses { "type": 12 } with details under inputsSchema.type', async () => {
    const details = expectValidationError(await create({ type: 12 }), ['inputsSchema', 'type']);
    expect(details.every((d) => d.code === 'invalid_schema')).toBe(true);
    expect(details[0].received).toBe('12');
  });

  test('refuses a 2020-12 schema with "prefixItems": 5 with details under inputsSchema.prefixItems', async () => {
    const details = expectValidationError(
      await create({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: 5 }),
      ['inputsSchema', 'prefixItems'],
    );
    expect(details[0]).toMatchObject({ code: 'invalid_schema', expected: 'array', received: '5' });
  });

  test.each([
    ['an unresolvable $ref', { $ref: '#/definitions/missing' }],
    ['a bad regular expression', { type: 'string', pattern: '(' }],
    ['an unsupported $schema', { $schema: 'http://json-schema.org/draft-04/schema#' }],
    ['a non-string $schema', { $schema: 7 }],
  ])('refuses %s with details', async (_name, schema) => {
    expectValidationError(await create(schema), ['inputsSchema']);
  });

  test.each([
    ['https://json-schema.org/draft-07/schema#'],
    ['http://json-schema.org/draft/2020-12/schema'],
  ])('a $schema of %s is never a 500', async (uri) => {
    const response = await create({ $schema: uri, type: 'object' });
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
  });

  test('PUT meta-validates too', async () => {
    const plugin = await emulator.current.createPlugin();
    expectValidationError(
      await call('PUT', `/api/plugins/${plugin.id}`, {
        token: TOKENS.owner,
        body: { inputsSchema: { type: 12 } },
      }),
      ['inputsSchema', 'type'],
    );
    expect(
      expectOk(await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.owner }))
        .inputsSchema,
    ).toEqual(plugin.inputsSchema);
  });
});

describe('reading plugins', () => {
  test('GET /api/plugins/:pluginId shows webhookSecret to MEMBER and OWNER only', async () => {
    const plugin = await emulator.current.createPlugin({ isPublic: true });
    for (const token of [TOKENS.owner, TOKENS.member, TOKENS.limitedInside]) {
      expect(
        expectOk(await call('GET', `/api/plugins/${plugin.id}`, { token })).webhookSecret,
      ).toBe(plugin.webhookSecret);
    }
    for (const token of [TOKENS.viewer, TOKENS.outsider, TOKENS.limitedOutside]) {
      const data = expectOk(await call('GET', `/api/plugins/${plugin.id}`, { token }));
      expect(data).not.toHaveProperty('webhookSecret');
      expect(data).toMatchObject({ id: plugin.id, name: plugin.name, webhookUrlIsVerified: false });
    }
  });

  test('a private plugin is 404 to non-members (the same answer as a missing one)', async () => {
    const plugin = await emulator.current.createPlugin({ isPublic: false });
    const hidden = expectError(
      await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.outsider }),
      404,
    );
    const missing = expectError(
      await call('GET', '/api/plugins/plg_missing', { token: TOKENS.outsider }),
      404,
    );
    expect(hidden.message.replace(plugin.id, 'ID')).toBe(
      missing.message.replace('plg_missing', 'ID'),
    );
    expectError(
      await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.limitedOutside }),
      404,
    );
    expect(
      expectOk(await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.viewer })).id,
    ).toBe(plugin.id);
  });

  test('GET /api/orgs/:orgId/plugins: members see every plugin of the org, non-members the public ones', async () => {
    const m = emulator.current;
    const pub = await m.createPlugin({ isPublic: true }, OTHER_ORG);
    const priv = await m.createPlugin({ isPublic: false }, OTHER_ORG);
    const ids = async (token: string) =>
      expectOk(
        await call('GET', `/api/orgs/${OTHER_ORG}/plugins`, { token, query: { '@limit': 100 } }),
      ).map((p: any) => p.id);
    // Nora is OWNER of OTHER_ORG; Mia is not a member; Olive's ORG-limited token is outside it.
    expect(await ids(TOKENS.outsider)).toEqual(expect.arrayContaining([pub.id, priv.id]));
    for (const token of [TOKENS.member, TOKENS.limitedInside]) {
      const seen = await ids(token);
      expect(seen).toContain(pub.id);
      expect(seen).not.toContain(priv.id);
    }
    const asNonMember = expectOk(
      await call('GET', `/api/orgs/${OTHER_ORG}/plugins`, { token: TOKENS.member }),
    );
    expect(
      asNonMember.every(
        (p: any) => p.isPublic === true && p.orgId === OTHER_ORG && !('webhookSecret' in p),
      ),
    ).toBe(true);
    expectError(await call('GET', '/api/orgs/org_nope/plugins', { token: TOKENS.owner }), 404);
  });

  test('GET /api/plugins/marketplace needs no token and shows public plugins only, without secrets', async () => {
    const m = emulator.current;
    const pub = await m.createPlugin({ isPublic: true });
    const otherPub = await m.createPlugin({ isPublic: true }, OTHER_ORG);
    const priv = await m.createPlugin({ isPublic: false });
    const response = await call('GET', '/api/plugins/marketplace', { query: { '@limit': 100 } });
    const data = expectOk(response);
    const ids = data.map((p: any) => p.id);
    expect(ids).toEqual(expect.arrayContaining([pub.id, otherPub.id]));
    expect(ids).not.toContain(priv.id);
    expect(data.every((p: any) => p.isPublic === true && !('webhookSecret' in p))).toBe(true);
    expect(response.body.meta.pagination.type).toBe('index');
    // A member of the owning org sees the secret of its own org's plugins there too.
    const asMember = expectOk(
      await call('GET', '/api/plugins/marketplace', {
        token: TOKENS.member,
        query: { '@limit': 100 },
      }),
    );
    expect(asMember.find((p: any) => p.id === pub.id).webhookSecret).toBe(pub.webhookSecret);
    expect(asMember.find((p: any) => p.id === otherPub.id)).not.toHaveProperty('webhookSecret');
  });

  test('GET /api/plugins/:id asked for again shows every change, the secret to members only, whoever asks first', async () => {
    const m = emulator.current;
    const plugin = await m.createPlugin({ isPublic: false });
    const url = `/api/plugins/${plugin.id}`;
    const asViewer = expectOk(await call('GET', url, { token: TOKENS.viewer }));
    expect(asViewer).not.toHaveProperty('webhookSecret');
    const asMember = expectOk(await call('GET', url, { token: TOKENS.member }));
    expect(asMember.webhookSecret).toBe(plugin.webhookSecret);
    expect(expectOk(await call('GET', url, { token: TOKENS.viewer }))).toEqual(asViewer);
    expect(expectOk(await call('GET', url, { token: TOKENS.owner }))).toEqual(asMember);
    expectError(await call('GET', url, { token: TOKENS.outsider }), 404);
    expectOk(
      await call('PUT', url, { token: TOKENS.member, body: { name: 'Renamed for readers' } }),
    );
    expect(expectOk(await call('GET', url, { token: TOKENS.viewer })).name).toBe(
      'Renamed for readers',
    );
    expect(expectOk(await call('GET', url, { token: TOKENS.member })).name).toBe(
      'Renamed for readers',
    );
    // A rotation's previous secret is never shown.
    expectOk(
      await call('POST', `${url}/webhook-secret/rotate`, { token: TOKENS.member, body: {} }),
    );
    const rotated = expectOk(await call('GET', url, { token: TOKENS.member }));
    expect(rotated).not.toHaveProperty('previousWebhookSecret');
    expect(rotated.webhookSecret).not.toBe(plugin.webhookSecret);
  });

  test('every caller hears the same from a plugin asked for before as from one never asked for', async () => {
    const m = emulator.current;
    for (const isPublic of [false, true]) {
      const kept = await m.createPlugin({ isPublic });
      const fresh = await Promise.all(CALLERS.map(() => m.createPlugin({ isPublic })));
      // Both views of `kept` are answered before anyone else asks.
      expectOk(await call('GET', `/api/plugins/${kept.id}`, { token: TOKENS.member }));
      expectOk(await call('GET', `/api/plugins/${kept.id}`, { token: TOKENS.viewer }));
      for (const [i, caller] of CALLERS.entries()) {
        const expected = await call('GET', `/api/plugins/${fresh[i].id}`, { token: caller.token });
        const answer = await call('GET', `/api/plugins/${kept.id}`, { token: caller.token });
        expect(answer.status, `${caller.name}, isPublic ${isPublic}`).toBe(expected.status);
        if (expected.status === 200) {
          expect(Object.keys(answer.body.data).sort(), caller.name).toEqual(
            Object.keys(expected.body.data).sort(),
          );
          expect(answer.body.data.id).toBe(kept.id);
        } else expect(answer.body.error.error, caller.name).toBe(expected.body.error.error);
      }
    }
  });

  test('a marketplace page asked for again shows every change to its plugins, and a member still gets the secrets', async () => {
    const m = emulator.current;
    const pub = await m.createPlugin({ isPublic: true, tags: ['page-again'] });
    const query = { tags: 'page-again', '@limit': 10 };
    const first = expectOk(await call('GET', '/api/plugins/marketplace', { query }));
    expect(first.map((p: any) => p.name)).toEqual([pub.name]);
    expect(expectOk(await call('GET', '/api/plugins/marketplace', { query }))).toEqual(first);
    expectOk(
      await call('PUT', `/api/plugins/${pub.id}`, {
        token: TOKENS.member,
        body: { name: 'Renamed in place' },
      }),
    );
    const again = expectOk(await call('GET', '/api/plugins/marketplace', { query }));
    expect(again.map((p: any) => p.name)).toEqual(['Renamed in place']);
    expect(again[0]).not.toHaveProperty('webhookSecret');
    // The same page, asked for by a member of the plugin's org right after an anonymous caller: with the secret.
    const asMember = expectOk(
      await call('GET', '/api/plugins/marketplace', { token: TOKENS.member, query }),
    );
    expect(asMember[0].webhookSecret).toBe(pub.webhookSecret);
    // And by a caller of another org: as anonymous.
    expect(
      expectOk(await call('GET', '/api/plugins/marketplace', { token: TOKENS.outsider, query })),
    ).toEqual(again);
  });
});

describe('updating plugins', () => {
  test('MEMBER updates fields; updatedAt moves, id, orgId and createdAt stay', async () => {
    const plugin = await emulator.current.createPlugin();
    await new Promise((r) => setTimeout(r, 5));
    const change = {
      name: 'Renamed',
      description: 'New words',
      tags: ['new'],
      isPublic: true,
      events: ['PLUGIN_UNINSTALLED'],
    };
    const data = expectOk(
      await call('PUT', `/api/plugins/${plugin.id}`, { token: TOKENS.member, body: change }),
    );
    expect(data).toMatchObject({
      ...change,
      id: plugin.id,
      orgId: ORG,
      createdAt: plugin.createdAt,
      type: plugin.type,
    });
    expect(data.updatedAt > plugin.updatedAt).toBe(true);
    expect(
      expectOk(await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.viewer })),
    ).toMatchObject(change);
  });

  test('updating webhookUrl to another URL sets webhookUrlIsVerified to false; the same URL and other updates keep it', async () => {
    const m = emulator.current;
    const plugin = await m.createPlugin();
    const markVerified = async () => {
      const record = emulatorInternals(m.emu).db.plugins.get(plugin.id)!;
      await emulatorInternals(m.emu).db.plugins.put({ ...record, webhookUrlIsVerified: true });
    };
    await markVerified();
    expect(
      expectOk(
        await call('PUT', `/api/plugins/${plugin.id}`, {
          token: TOKENS.owner,
          body: { description: 'x' },
        }),
      ).webhookUrlIsVerified,
    ).toBe(true);
    expect(
      expectOk(
        await call('PUT', `/api/plugins/${plugin.id}`, {
          token: TOKENS.owner,
          body: { webhookUrl: 'https://example.com/new' },
        }),
      ).webhookUrlIsVerified,
    ).toBe(false);
    await markVerified();
    // The same URL again (an edit form that sends every field): nothing to verify again.
    const same = expectOk(
      await call('PUT', `/api/plugins/${plugin.id}`, {
        token: TOKENS.owner,
        body: { webhookUrl: 'https://example.com/new', description: 'y' },
      }),
    );
    expect(same).toMatchObject({
      webhookUrl: 'https://example.com/new',
      description: 'y',
      webhookUrlIsVerified: true,
    });
    expect(
      expectOk(
        await call('PUT', `/api/plugins/${plugin.id}`, {
          token: TOKENS.owner,
          body: { webhookUrl: 'https://example.com/other' },
        }),
      ).webhookUrlIsVerified,
    ).toBe(false);
    expect(
      expectOk(await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.owner }))
        .webhookUrlIsVerified,
    ).toBe(false);
    // Verified again, then the URL removed: nothing verified any more.
    await markVerified();
    expect(
      expectOk(
        await call('PUT', `/api/plugins/${plugin.id}`, {
          token: TOKENS.owner,
          body: { webhookUrl: null },
        }),
      ).webhookUrlIsVerified,
    ).toBe(false);
  });

  test.each([
    ['an empty body', {}, []],
    ['orgId (a plugin cannot move)', { orgId: OTHER_ORG }, ['orgId']],
    ['webhookUrlIsVerified', { webhookUrlIsVerified: true }, ['webhookUrlIsVerified']],
    ['id', { id: 'plg_other' }, ['id']],
    ['a bad type', { type: 'nope' }, ['type']],
  ])('refuses %s with details', async (_name, body, path) => {
    const plugin = await emulator.current.createPlugin();
    expectValidationError(
      await call('PUT', `/api/plugins/${plugin.id}`, { token: TOKENS.owner, body }),
      path as string[],
    );
  });

  test('VIEWER cannot update (403); a missing plugin is 404', async () => {
    const plugin = await emulator.current.createPlugin();
    expectError(
      await call('PUT', `/api/plugins/${plugin.id}`, { token: TOKENS.viewer, body: { name: 'x' } }),
      403,
    );
    expectError(
      await call('PUT', '/api/plugins/plg_missing', { token: TOKENS.owner, body: { name: 'x' } }),
      404,
    );
  });
});

describe('deleting plugins', () => {
  test('OWNER deletes a plugin with its actions and external events', async () => {
    const m = emulator.current;
    const plugin = await m.createPlugin();
    await m.createDefinition(plugin.id, 'actions', { name: 'a' });
    await m.createDefinition(plugin.id, 'external-events', { name: 'e' });
    expectError(await call('DELETE', `/api/plugins/${plugin.id}`, { token: TOKENS.member }), 403);
    const data = expectOk(
      await call('DELETE', `/api/plugins/${plugin.id}`, { token: TOKENS.owner }),
    );
    expect(data).toMatchObject({ id: plugin.id, deleted: true });
    expectError(await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.owner }), 404);
    expectError(
      await call('GET', `/api/plugins/${plugin.id}/actions`, { token: TOKENS.owner }),
      404,
    );
    expect(emulatorInternals(m.emu).db.actions.where('pluginId', plugin.id)).toEqual([]);
    expect(emulatorInternals(m.emu).db.externalEvents.where('pluginId', plugin.id)).toEqual([]);
    expectError(await call('DELETE', `/api/plugins/${plugin.id}`, { token: TOKENS.owner }), 404);
  });
});
