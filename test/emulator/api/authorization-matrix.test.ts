import { beforeAll, describe, expect, test } from 'vitest';
import {
  AGENT,
  CALLERS,
  CHARACTER,
  ORG,
  REPOSITORY,
  useMatrixEmulator,
  type Caller,
  type MatrixEmulator,
  type Role,
} from '../../kit/matrix-emulator.js';
import { expectError } from '../../kit/envelope.js';
import { receiver } from '../../kit/index.js';

// Every operation of the management API (/api) against every kind of caller. Expected statuses come from
// the rules (spec "Authentication" and the statuses in docs/emulator-behaviour.md), not from a hand-typed table.

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

/** Any authenticated caller, member or not, gets 200 (a list that shows each caller what it may see). */
const anyUser = (c: Caller) => authenticated(c, () => 200);

interface Target {
  path: string;
  body?: unknown;
}

interface Row {
  name: string;
  /** The operationId of the OpenAPI document the row calls: the matrix covers every /api operation. */
  operation: string;
  method: string;
  /** Builds the request; may create what the request acts on (so a DELETE has something to delete). */
  target: (m: MatrixEmulator) => Promise<Target> | Target;
  expected: (c: Caller) => number;
}

let unique = 0;
const next = (prefix: string) => `${prefix}${++unique}`;

type PluginType = 'DATA_PROVIDER' | 'EVENT_HANDLER' | 'APP';

/** An app of ORG: apps are not stored, so it exists (in ORG) once it has an instance, made before the tests. */
const APP = 'app_matrix';

/** A plugin of ORG with an action and an external event. */
interface PluginFixture {
  pluginId: string;
  action: string;
  event: string;
}

/** What the rows act on beyond the seed, made before the tests: a private and a public plugin, and… */
interface Fixtures extends Record<'private' | 'public', PluginFixture> {
  /** A verified plugin of ORG of each type, to install on the entity that takes it. */
  installable: Record<PluginType, string>;
  /** Uploaded files of ORG, both in REPOSITORY (`public`: the file's isPublic). */
  files: Record<'private' | 'public', string>;
  /** A conversation with CHARACTER, the character of AGENT. */
  conversationId: string;
}

const fixtures = {} as Fixtures;

/** An upload request for one file under `parentId`. */
const uploadBody = (parentType: string, parentId: string) => ({
  files: [{ fileName: next('matrix-'), contentType: 'text/plain' }],
  parentType,
  parentId,
});

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
    expected: anyUser,
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
      // Its webhook (the receiver) answers the challenge; a URL that failed would still be a 200.
      {
        name: `POST ${visibility} plugin verify-webhook`,
        operation: 'verifyWebhook',
        method: 'POST',
        target: () => ({ path: `${plugin()}/verify-webhook` }),
        expected: change('MEMBER', isPublic),
      },
      {
        name: `POST ${visibility} plugin webhook-secret/rotate`,
        operation: 'rotateWebhookSecret',
        method: 'POST',
        target: () => ({ path: `${plugin()}/webhook-secret/rotate`, body: { graceSeconds: 0 } }),
        expected: change('MEMBER', isPublic),
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

  // A repository is private to its org: a non-member gets 404 before any role is checked.
  {
    name: 'POST /api/repositories/:repositoryId/files',
    operation: 'addRepositoryFile',
    method: 'POST',
    target: async (m) => ({
      path: `/api/repositories/${REPOSITORY}/files`,
      body: { fileId: (await m.uploadFile({ uploaded: true })).id },
    }),
    expected: change('MEMBER', false, 201),
  },
  {
    name: 'GET /api/repositories/:repositoryId/files',
    operation: 'listRepositoryFiles',
    method: 'GET',
    target: () => ({ path: `/api/repositories/${REPOSITORY}/files` }),
    expected: read(false),
  },
  // Removing a file from a repository is MEMBER's, not only OWNER's: the file itself stays.
  {
    name: 'DELETE /api/repositories/:repositoryId/files/:fileId',
    operation: 'removeRepositoryFile',
    method: 'DELETE',
    target: async (m) => {
      const file = await m.uploadFile({ uploaded: true });
      await m.addRepositoryFile(REPOSITORY, file.id);
      return { path: `/api/repositories/${REPOSITORY}/files/${file.id}` };
    },
    expected: change('MEMBER', false),
  },

  // Instances on each kind of entity: installing needs MEMBER, listing any role, removing OWNER; the
  // entity is private to its org (an app too, once its first instance put it in ORG).
  ...(
    [
      {
        route: '/api/repositories/:repositoryId/data-providers',
        path: `/api/repositories/${REPOSITORY}/data-providers`,
        type: 'DATA_PROVIDER',
        operations: ['installDataProvider', 'listDataProviders', 'uninstallDataProvider'],
      },
      {
        route: '/api/agents/:agentId/plugins',
        path: `/api/agents/${AGENT}/plugins`,
        type: 'EVENT_HANDLER',
        operations: ['installAgentPlugin', 'listAgentPlugins', 'uninstallAgentPlugin'],
      },
      {
        route: '/api/apps/:appId/plugins',
        path: `/api/apps/${APP}/plugins`,
        type: 'APP',
        operations: ['installAppPlugin', 'listAppPlugins', 'uninstallAppPlugin'],
      },
    ] as const
  ).flatMap(({ route, path, type, operations: [install, list, uninstall] }): Row[] => {
    const instanceBody = () => ({
      name: next('instance '),
      pluginId: fixtures.installable[type],
      events: [],
      scopes: [],
    });
    return [
      {
        name: `POST ${route}`,
        operation: install,
        method: 'POST',
        target: () => ({ path, body: instanceBody() }),
        expected: change('MEMBER', false, 201),
      },
      {
        name: `GET ${route}`,
        operation: list,
        method: 'GET',
        target: () => ({ path }),
        expected: read(false),
      },
      {
        name: `DELETE ${route}/:pluginInstanceId`,
        operation: uninstall,
        method: 'DELETE',
        target: async (m) => ({ path: `${path}/${(await m.install(path, instanceBody())).id}` }),
        expected: change('OWNER', false),
      },
    ];
  }),

  // Uploads: the files' owning org is the parent's. ORG exists for everyone (403 for a non-member, as
  // creating in ORG); an agent or a character is private to its org (404).
  {
    name: 'POST /api/generate-upload-url for an org',
    operation: 'generateUploadUrl',
    method: 'POST',
    target: () => ({ path: '/api/generate-upload-url', body: uploadBody('ORG', ORG) }),
    expected: createInOrg,
  },
  {
    name: 'POST /api/generate-upload-url for an agent',
    operation: 'generateUploadUrl',
    method: 'POST',
    target: () => ({ path: '/api/generate-upload-url', body: uploadBody('AGENT', AGENT) }),
    expected: change('MEMBER', false, 201),
  },
  {
    name: 'POST /api/generate-upload-url for a character',
    operation: 'generateUploadUrl',
    method: 'POST',
    target: () => ({ path: '/api/generate-upload-url', body: uploadBody('CHARACTER', CHARACTER) }),
    expected: change('MEMBER', false, 201),
  },
  {
    name: 'GET /api/generate-upload-url for an org',
    operation: 'generateUploadUrlWithGet',
    method: 'GET',
    target: () => ({ path: '/api/generate-upload-url', body: uploadBody('ORG', ORG) }),
    expected: change('MEMBER', true),
  },
  // A file of ORG is private to ORG (a non-member gets 404); null → FAILED is a move the status machine allows.
  {
    name: 'PATCH /api/status',
    operation: 'updateFileStatus',
    method: 'PATCH',
    target: async (m) => ({
      path: '/api/status',
      body: {
        fileId: (await m.uploadFile()).id,
        status: 'FAILED',
        errorMessage: 'from the matrix',
      },
    }),
    expected: change('MEMBER', false),
  },
  // Lists the files the caller may read: none of ORG's for a non-member, but still a 200.
  {
    name: 'GET /api',
    operation: 'listFiles',
    method: 'GET',
    target: () => ({ path: '/api' }),
    expected: anyUser,
  },
  // A file's isPublic makes its content URL direct; reading the file through the API stays ORG's members'.
  ...(['private', 'public'] as const).map(
    (visibility): Row => ({
      name: `GET /api/access/:fileId of a ${visibility} file`,
      operation: 'getFileAccessUrl',
      method: 'GET',
      target: () => ({ path: `/api/access/${fixtures.files[visibility]}` }),
      expected: read(false),
    }),
  ),

  // Only an installation access token with AGENT_MESSAGE_WRITE on the agent writes its messages: every
  // user token is a 403, whatever its role (installation tokens, right and wrong, are
  // test/emulator/messaging/plugin-engine.test.ts's callers).
  {
    name: 'POST /api/agents/:agentId/conversations/:conversationId/messages',
    operation: 'writeAgentMessage',
    method: 'POST',
    target: () => ({
      path: `/api/agents/${AGENT}/conversations/${fixtures.conversationId}/messages`,
      body: { content: 'from the matrix', isStreaming: false },
    }),
    expected: (c) => authenticated(c, () => 403),
  },
];

const emulator = useMatrixEmulator();

beforeAll(async () => {
  const m = emulator.current;
  // Answers the challenges of verify-webhook and takes the events installs send (closed by the kit).
  const { webhookUrl } = await receiver();
  for (const visibility of ['private', 'public'] as const) {
    const plugin = await m.createPlugin({ isPublic: visibility === 'public', webhookUrl });
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

  const installable = {} as Record<PluginType, string>;
  for (const type of ['DATA_PROVIDER', 'EVENT_HANDLER', 'APP'] as const) {
    const plugin = await m.createPlugin({ type, webhookUrl, events: [], scopes: [] });
    await m.verifyWebhook(plugin.id);
    installable[type] = plugin.id;
  }
  fixtures.installable = installable;
  await m.install(`/api/apps/${APP}/plugins`, {
    name: 'puts the app in ORG',
    pluginId: installable.APP,
    events: [],
    scopes: [],
    orgId: ORG,
  });

  const files = {} as Record<'private' | 'public', string>;
  for (const visibility of ['private', 'public'] as const) {
    const file = await m.uploadFile({ uploaded: true, isPublic: visibility === 'public' });
    await m.addRepositoryFile(REPOSITORY, file.id);
    files[visibility] = file.id;
  }
  fixtures.files = files;
  fixtures.conversationId = await m.createConversation(CHARACTER);
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

/**
 * The document's tags the matrix leaves to other tests, and why: their operations are not under /api and their
 * callers are not user tokens. Every other tag (all of /api's) is covered operation by operation.
 */
const TAGS_TESTED_ELSEWHERE: Record<string, string> = {
  // The messaging API is its own server, where a caller is an org's API key (psk_), not a user token.
  messaging: 'test/emulator/messaging/authorization.test.ts',
  // The admin API (/_emulator) takes only the admin credential, behind one guard.
  admin: 'test/security/admin-guard.test.ts',
  'admin-deliveries': 'test/security/admin-guard.test.ts',
  'admin-messaging': 'test/security/admin-guard.test.ts',
  'admin-store': 'test/security/admin-guard.test.ts',
  'admin-dashboard': 'test/security/admin-guard.test.ts',
};

interface DocumentedOperation {
  path: string;
  method: string;
  operationId: string;
  tags: string[];
}

test('the matrix covers every /api operation of the OpenAPI document, for all eight callers', async () => {
  expect(CALLERS).toHaveLength(8);
  const document = await emulator.current.call('GET', '/_emulator/openapi.json');
  const operations: DocumentedOperation[] = Object.entries<Record<string, any>>(
    document.body.paths,
  ).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => typeof operation?.operationId === 'string')
      .map(([method, operation]) => ({
        path,
        method: method.toUpperCase(),
        operationId: operation.operationId,
        tags: operation.tags ?? [],
      })),
  );
  const tags: string[] = document.body.tags.map((tag: { name: string }) => tag.name);
  // No stale exclusion: each names a tag of the document.
  expect(tags).toEqual(expect.arrayContaining(Object.keys(TAGS_TESTED_ELSEWHERE)));
  const matrixTags = tags.filter((tag) => !(tag in TAGS_TESTED_ELSEWHERE));
  expect(matrixTags.length).toBeGreaterThanOrEqual(10);

  const isMatrixOperation = (o: DocumentedOperation) => o.tags.some((t) => matrixTags.includes(t));
  const documented = operations.filter(isMatrixOperation);
  // The matrix's tags are exactly the operations under /api: an excluded tag hides none of them.
  expect(documented.map((o) => o.path).filter((path) => !/^\/api(\/|$)/.test(path))).toEqual([]);
  expect(operations.filter((o) => /^\/api(\/|$)/.test(o.path) && !isMatrixOperation(o))).toEqual(
    [],
  );

  const covered = new Set(rows.map((row) => row.operation));
  expect([...covered].sort()).toEqual(documented.map((o) => o.operationId).sort());
  // Each row calls its operation with the operation's method.
  const methodOf = new Map(documented.map((o) => [o.operationId, o.method]));
  expect(rows.filter((row) => methodOf.get(row.operation) !== row.method)).toEqual([]);
  // Every row has its own name.
  expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
});
