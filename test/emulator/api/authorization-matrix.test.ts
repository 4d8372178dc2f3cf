import { beforeAll, describe, expect, test } from 'vitest';
import {
  CALLERS,
  ORG,
  REPOSITORY,
  useMatrixEmulator,
  type Caller,
  type MatrixEmulator,
  type Role,
} from '../../kit/matrix-emulator.js';
import { expectError } from '../../kit/envelope.js';

// Every route of issue 2 against every kind of caller. Expected statuses come from the rules
// (spec "Authentication" and the statuses in docs/emulator-behaviour.md), not from a hand-typed table.

const RANK: Record<Role, number> = { VIEWER: 1, MEMBER: 2, OWNER: 3 };

/** A missing or unknown token is 401 before anything else. */
function authenticated(c: Caller, then: () => number): number {
  return c.authenticated ? then() : 401;
}

/** Reading something of ORG: members (any role) may; non-members only when it is public, else 404. */
const read = (isPublic: boolean) => (c: Caller) =>
  authenticated(c, () => (c.roleInOrg !== null || isPublic ? 200 : 404));

/**
 * Changing something of ORG that needs `minimum`: a non-member who cannot see it gets 404, one
 * who can (a public plugin) gets 403; a member below `minimum` gets 403.
 */
const change =
  (minimum: Role, isPublic: boolean, success = 200) =>
  (c: Caller) =>
    authenticated(c, () => {
      if (c.roleInOrg === null) return isPublic ? 403 : 404;
      return RANK[c.roleInOrg] >= RANK[minimum] ? success : 403;
    });

/** Creating in ORG: the org exists for everyone, so a non-member gets 403; MEMBER or OWNER create. */
const createInOrg = change('MEMBER', true, 201);

interface Target {
  path: string;
  body?: unknown;
}

interface Row {
  name: string;
  /** The operation of the OpenAPI document the row calls: the matrix covers every operation of its tags. */
  operation: string;
  method: string;
  /** Builds the request; may create what the request acts on (so a DELETE has something to delete). */
  target: (m: MatrixEmulator) => Promise<Target> | Target;
  expected: (c: Caller) => number;
}

let unique = 0;
const next = (prefix: string) => `${prefix}${++unique}`;

/** Plugins (one private, one public) with an action and an external event, made before the tests. */
const fixtures: Record<'private' | 'public', { pluginId: string; action: string; event: string }> =
  {} as never;

const pluginBody = () => ({
  name: next('Matrix plugin '),
  type: 'APP',
  description: 'from the matrix',
  isPublic: false,
});

const rows: Row[] = [
  {
    name: 'POST /api/tokens',
    operation: 'createToken',
    method: 'POST',
    target: () => ({ path: '/api/tokens', body: { name: next('token ') } }),
    // An org-limited token cannot mint a token usable in every org.
    expected: (c) => authenticated(c, () => (c.limitedTo !== null ? 403 : 201)),
  },
  {
    name: 'POST /api/tokens with orgId',
    operation: 'createToken',
    method: 'POST',
    target: () => ({ path: '/api/tokens', body: { name: next('token '), orgId: ORG } }),
    expected: (c) => authenticated(c, () => (c.roleInOrg === null ? 403 : 201)),
  },

  {
    name: 'POST /api/plugins',
    operation: 'createPlugin',
    method: 'POST',
    target: () => ({ path: '/api/plugins', body: { ...pluginBody(), orgId: ORG } }),
    expected: createInOrg,
  },
  {
    name: 'POST /api/orgs/:orgId/plugins',
    operation: 'createOrgPlugin',
    method: 'POST',
    target: () => ({ path: `/api/orgs/${ORG}/plugins`, body: pluginBody() }),
    expected: createInOrg,
  },
  {
    name: 'GET /api/plugins/marketplace',
    operation: 'listMarketplacePlugins',
    method: 'GET',
    target: () => ({ path: '/api/plugins/marketplace' }),
    // Readable without a token; a token that is sent must still be valid.
    expected: (c) => (c.token !== undefined && !c.authenticated ? 401 : 200),
  },
  // A non-member sees the org's public plugins: 200 for every authenticated caller.
  {
    name: 'GET /api/orgs/:orgId/plugins',
    operation: 'listOrgPlugins',
    method: 'GET',
    target: () => ({ path: `/api/orgs/${ORG}/plugins` }),
    expected: (c) => authenticated(c, () => 200),
  },

  ...(['private', 'public'] as const).flatMap((visibility): Row[] => {
    const isPublic = visibility === 'public';
    const f = () => fixtures[visibility];
    const plugin = () => `/api/plugins/${f().pluginId}`;
    const freshPlugin = async (m: MatrixEmulator) =>
      (await m.createPlugin({ isPublic })).id as string;
    const definitionRows = (
      [
        ['actions', 'action'],
        ['external-events', 'event'],
      ] as const
    ).flatMap(([segment, key]): Row[] => {
      // The kind's operationIds: `listActions`, `getExternalEvent`, …
      const kind = segment === 'actions' ? 'Action' : 'ExternalEvent';
      return [
        {
          name: `GET ${visibility} plugin ${segment}`,
          operation: `list${kind}s`,
          method: 'GET',
          target: () => ({ path: `${plugin()}/${segment}` }),
          expected: read(isPublic),
        },
        {
          name: `GET ${visibility} plugin ${segment}/:name`,
          operation: `get${kind}`,
          method: 'GET',
          target: () => ({ path: `${plugin()}/${segment}/${f()[key]}` }),
          expected: read(isPublic),
        },
        {
          name: `POST ${visibility} plugin ${segment}`,
          operation: `create${kind}`,
          method: 'POST',
          target: () => ({
            path: `${plugin()}/${segment}`,
            body: { name: next('def_'), title: 'New' },
          }),
          expected: change('MEMBER', isPublic, 201),
        },
        {
          name: `PUT ${visibility} plugin ${segment}/:name`,
          operation: `update${kind}`,
          method: 'PUT',
          target: () => ({
            path: `${plugin()}/${segment}/${f()[key]}`,
            body: { title: next('Title ') },
          }),
          expected: change('MEMBER', isPublic),
        },
        {
          name: `DELETE ${visibility} plugin ${segment}/:name`,
          operation: `delete${kind}`,
          method: 'DELETE',
          target: async (m) => {
            const created = await m.createDefinition(f().pluginId, segment, {
              name: next('doomed_'),
            });
            return { path: `${plugin()}/${segment}/${created.name}` };
          },
          expected: change('OWNER', isPublic),
        },
      ];
    });
    return [
      {
        name: `GET ${visibility} plugin`,
        operation: 'getPlugin',
        method: 'GET',
        target: () => ({ path: plugin() }),
        expected: read(isPublic),
      },
      {
        name: `PUT ${visibility} plugin`,
        operation: 'updatePlugin',
        method: 'PUT',
        target: () => ({ path: plugin(), body: { description: next('updated ') } }),
        expected: change('MEMBER', isPublic),
      },
      {
        name: `DELETE ${visibility} plugin`,
        operation: 'deletePlugin',
        method: 'DELETE',
        target: async (m) => ({ path: `/api/plugins/${await freshPlugin(m)}` }),
        expected: change('OWNER', isPublic),
      },
      ...definitionRows,
    ];
  }),

  {
    name: 'POST /api/repositories',
    operation: 'createRepository',
    method: 'POST',
    target: () => ({ path: '/api/repositories', body: { name: next('repo '), orgId: ORG } }),
    expected: createInOrg,
  },
  {
    name: 'POST /api/orgs/:orgId/repositories',
    operation: 'createOrgRepository',
    method: 'POST',
    target: () => ({ path: `/api/orgs/${ORG}/repositories`, body: { name: next('repo ') } }),
    expected: createInOrg,
  },
  {
    name: 'GET /api/repositories/:repositoryId',
    operation: 'getRepository',
    method: 'GET',
    target: () => ({ path: `/api/repositories/${REPOSITORY}` }),
    expected: read(false),
  },
  // docs/emulator-behaviour.md, "Roles": a non-member listing an org's repositories gets 403 (not 404).
  {
    name: 'GET /api/orgs/:orgId/repositories',
    operation: 'listOrgRepositories',
    method: 'GET',
    target: () => ({ path: `/api/orgs/${ORG}/repositories` }),
    expected: (c) => authenticated(c, () => (c.roleInOrg === null ? 403 : 200)),
  },
];

const emulator = useMatrixEmulator();

beforeAll(async () => {
  const m = emulator.current;
  for (const visibility of ['private', 'public'] as const) {
    const plugin = await m.createPlugin({ isPublic: visibility === 'public' });
    const action = await m.createDefinition(plugin.id, 'actions', {
      name: 'lookup',
      title: 'Look up',
    });
    const event = await m.createDefinition(plugin.id, 'external-events', {
      name: 'ticket.created',
      title: 'Ticket created',
    });
    fixtures[visibility] = { pluginId: plugin.id, action: action.name, event: event.name };
  }
});

describe.each(rows)('$name', (row) => {
  const cells = CALLERS.map((caller) => ({
    caller,
    callerName: caller.name,
    expected: row.expected(caller),
  }));
  test.each(cells)('$callerName → $expected', async ({ caller, expected }) => {
    const m = emulator.current;
    const { path, body } = await row.target(m);
    const response = await m.call(row.method, path, { token: caller.token, body });
    if (expected < 400) {
      expect(response.status, JSON.stringify(response.body)).toBe(expected);
      expect(response.body.ok).toBe(true);
    } else {
      expectError(response, expected);
    }
  });
});

/** The tags whose every operation the matrix covers: issue 2's routes (the webhook's verify and rotate have their own tests). */
const MATRIX_TAGS = ['tokens', 'plugins', 'actions', 'external-events', 'repositories'];

test('the matrix covers every operation of its tags in the OpenAPI document, for all eight callers', async () => {
  expect(CALLERS).toHaveLength(8);
  const document = await emulator.current.call('GET', '/_emulator/openapi.json');
  const documented = Object.values<Record<string, { operationId: string; tags: string[] }>>(
    document.body.paths,
  ).flatMap((item) =>
    Object.values(item).filter(
      (operation) => typeof operation === 'object' && MATRIX_TAGS.includes(operation.tags?.[0]),
    ),
  );
  expect(documented.length).toBeGreaterThan(0);
  const covered = new Set(rows.map((row) => row.operation));
  expect([...covered].sort()).toEqual(documented.map((o) => o.operationId).sort());
  // Every row has its own name.
  expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
});
