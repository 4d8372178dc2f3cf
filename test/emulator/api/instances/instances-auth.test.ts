import { call, emulator } from '../../../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { Emulator } from '../../../../emulator/index.js';
import { install, verifiedPlugin, WebhookServer } from '../../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../../kit/roles-seed.js';

// Who calls: every kind of credential the management API meets.
const CALLERS = [
  'none',
  'unknown',
  'nonMember',
  'viewer',
  'member',
  'owner',
  'limitedInside',
  'limitedOutside',
  'instanceRightScope',
  'instanceWrongScope',
  'instanceOtherEntity',
  'instanceUninstalled',
] as const;
type Caller = (typeof CALLERS)[number];

let emu: Emulator;
let hook: WebhookServer;
const token: Partial<Record<Caller, string | null>> = {
  none: null,
  unknown: 'pst_this_token_was_never_issued',
  nonMember: TOKENS.outsider,
  viewer: TOKENS.viewer,
  member: TOKENS.member,
  owner: TOKENS.owner,
  limitedInside: TOKENS.ownerLimitedToAcme,
  limitedOutside: TOKENS.ownerLimitedToOther,
};
let ids: {
  dataProvider: string;
  handler: string;
  app: string;
  privatePlugin: string;
  file: string;
};

/** A file uploaded through a signed URL (org_acme) and added to a repository; its id. */
async function fileInRepository(repositoryId: string): Promise<string> {
  const generated = await call(emu.url, 'POST', '/api/generate-upload-url', {
    bearer: TOKENS.owner,
    body: {
      files: [{ fileName: 'matrix.md' }],
      parentId: 'org_acme',
      parentType: 'ORG',
    },
  });
  const { signedUrl, fileRecord } = generated.body.data.files[0];
  const put = await request(signedUrl, { method: 'PUT', body: 'matrix' });
  await put.body.dump();
  expect(put.statusCode).toBeLessThan(300);
  expect(
    (
      await call(emu.url, 'PATCH', '/api/status', {
        bearer: TOKENS.owner,
        body: {
          fileId: fileRecord.id,
          status: 'UPLOADED',
        },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await call(emu.url, 'POST', `/api/repositories/${repositoryId}/files`, {
        bearer: TOKENS.owner,
        body: {
          fileId: fileRecord.id,
        },
      })
    ).status,
  ).toBe(201);
  return fileRecord.id;
}

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeScale: 0.01 } });
  hook = await WebhookServer.start();

  const common = {
    webhookUrl: hook.url,
    isPublic: true,
    scopes: ['REPOSITORY_FILES_READ', 'AGENT_MESSAGE_WRITE'],
  };
  const dataProvider = await verifiedPlugin(emu, TOKENS.owner, 'org_acme', {
    type: 'DATA_PROVIDER',
    ...common,
  });
  const handler = await verifiedPlugin(emu, TOKENS.owner, 'org_acme', {
    type: 'EVENT_HANDLER',
    ...common,
  });
  const app = await verifiedPlugin(emu, TOKENS.owner, 'org_acme', { type: 'APP', ...common });
  const privatePlugin = await verifiedPlugin(emu, TOKENS.owner, 'org_acme', {
    type: 'DATA_PROVIDER',
    webhookUrl: hook.url,
  });
  ids = {
    dataProvider: dataProvider.id,
    handler: handler.id,
    app: app.id,
    privatePlugin: privatePlugin.id,
    file: await fileInRepository('repo_acme'),
  };
  // The app exists (in org_acme) once it has an instance.
  await install(emu, hook, TOKENS.owner, '/api/apps/app_matrix/plugins', {
    name: 'anchor',
    pluginId: app.id,
    events: [],
    scopes: [],
    orgId: 'org_acme',
  });

  const dp = (scopes: string[]) => ({ name: 'dp', pluginId: dataProvider.id, events: [], scopes });
  token.instanceRightScope = (
    await install(
      emu,
      hook,
      TOKENS.owner,
      '/api/repositories/repo_acme/data-providers',
      dp(['REPOSITORY_FILES_READ']),
    )
  ).accessToken;
  token.instanceWrongScope = (
    await install(
      emu,
      hook,
      TOKENS.owner,
      '/api/repositories/repo_acme/data-providers',
      dp(['AGENT_MESSAGE_WRITE']),
    )
  ).accessToken;
  token.instanceOtherEntity = (
    await install(
      emu,
      hook,
      TOKENS.outsider,
      '/api/repositories/repo_other/data-providers',
      dp(['REPOSITORY_FILES_READ']),
    )
  ).accessToken;
  const gone = await install(
    emu,
    hook,
    TOKENS.owner,
    '/api/repositories/repo_acme/data-providers',
    dp(['REPOSITORY_FILES_READ']),
  );
  expect(
    (
      await call(
        emu.url,
        'DELETE',
        `/api/repositories/repo_acme/data-providers/${gone.instance.id}`,
        { bearer: TOKENS.owner },
      )
    ).status,
  ).toBe(200);
  token.instanceUninstalled = gone.accessToken;
});
afterAll(async () => {
  await hook?.close();
});

/** Expected statuses for routes with the same rules; instance tokens never manage instances. */
const instanceCallers = {
  instanceRightScope: 403,
  instanceWrongScope: 403,
  instanceOtherEntity: 403,
  instanceUninstalled: 401,
} as const;
const unauthenticated = { none: 401, unknown: 401 } as const;
const install201 = {
  ...unauthenticated,
  nonMember: 404,
  viewer: 403,
  member: 201,
  owner: 201,
  limitedInside: 201,
  limitedOutside: 404,
  ...instanceCallers,
};
const list200 = {
  ...unauthenticated,
  nonMember: 404,
  viewer: 200,
  member: 200,
  owner: 200,
  limitedInside: 200,
  limitedOutside: 404,
  ...instanceCallers,
};
const remove200 = {
  ...unauthenticated,
  nonMember: 404,
  viewer: 403,
  member: 403,
  owner: 200,
  limitedInside: 200,
  limitedOutside: 404,
  ...instanceCallers,
};

interface Row {
  route: string;
  method: string;
  /** The path, after any setup the call needs (a fresh instance to delete). */
  path: () => Promise<string> | string;
  body?: () => Record<string, unknown>;
  expected: Record<Caller, number>;
}

function entityRows(
  label: string,
  base: string,
  pluginOf: () => string,
  extra: Record<string, unknown> = {},
): Row[] {
  const body = () => ({ name: 'matrix', pluginId: pluginOf(), events: [], scopes: [], ...extra });
  return [
    { route: `POST ${label}`, method: 'POST', path: () => base, body, expected: install201 },
    { route: `GET ${label}`, method: 'GET', path: () => base, expected: list200 },
    {
      route: `DELETE ${label}/:pluginInstanceId`,
      method: 'DELETE',
      path: async () =>
        `${base}/${(await install(emu, hook, TOKENS.owner, base, body())).instance.id}`,
      expected: remove200,
    },
  ];
}

const ROWS: Row[] = [
  ...entityRows(
    '/api/repositories/:repositoryId/data-providers',
    '/api/repositories/repo_acme/data-providers',
    () => ids.dataProvider,
  ),
  ...entityRows(
    '/api/agents/:agentId/plugins',
    '/api/agents/agent_acme/plugins',
    () => ids.handler,
  ),
  ...entityRows('/api/apps/:appId/plugins', '/api/apps/app_matrix/plugins', () => ids.app),
  {
    route: 'POST /api/plugins/:pluginId/verify-webhook',
    method: 'POST',
    path: () => `/api/plugins/${ids.privatePlugin}/verify-webhook`,
    expected: {
      ...unauthenticated,
      nonMember: 404,
      viewer: 403,
      member: 200,
      owner: 200,
      limitedInside: 200,
      limitedOutside: 404,
      ...instanceCallers,
    },
  },
  // The routes an installation token is for: a data provider reading its repository's files.
  ...[
    ['GET /api/repositories/:repositoryId/files', () => '/api/repositories/repo_acme/files'],
    ['GET /api/access/:fileId (a file of repo_acme)', () => `/api/access/${ids.file}`],
  ].map(([route, path]) => ({
    route: route as string,
    method: 'GET',
    path: path as () => string,
    expected: {
      ...unauthenticated,
      nonMember: 404,
      viewer: 200,
      member: 200,
      owner: 200,
      limitedInside: 200,
      limitedOutside: 404,
      instanceRightScope: 200,
      instanceWrongScope: 403,
      instanceOtherEntity: 403,
      instanceUninstalled: 401,
    },
  })),
];

const CASES = ROWS.flatMap((row) =>
  CALLERS.map((caller) => ({ ...row, caller, status: row.expected[caller] })),
);

describe('authorization of the instance, verification and scope-checked routes', () => {
  it.each(CASES)('$route as $caller → $status', async ({ method, path, body, caller, status }) => {
    const result = await call(emu.url, method, await path(), {
      bearer: token[caller],
      body: body?.(),
    });
    expect(result.status, JSON.stringify(result.body)).toBe(status);
    if (status >= 400) expect(result.body.ok).toBe(false);
  });
});

describe('installation access tokens on the user routes', () => {
  const USER_ROUTES: Array<[string, string, () => unknown]> = [
    ['POST', '/api/tokens', () => ({ name: 't' })],
    ['POST', '/api/plugins', () => ({ name: 'p', type: 'APP', orgId: 'org_acme' })],
    ['POST', '/api/orgs/org_acme/plugins', () => ({ name: 'p', type: 'APP' })],
    ['GET', '/api/orgs/org_acme/plugins', () => undefined],
    ['GET', '/api/plugins/{private}', () => undefined],
    ['PUT', '/api/plugins/{private}', () => ({ name: 'renamed' })],
    ['DELETE', '/api/plugins/{private}', () => undefined],
    ['GET', '/api/plugins/{private}/actions', () => undefined],
    ['POST', '/api/plugins/{private}/actions', () => ({ name: 'a' })],
    ['GET', '/api/plugins/{private}/external-events', () => undefined],
    ['POST', '/api/plugins/{private}/external-events', () => ({ name: 'e', payloadSchema: {} })],
    ['POST', '/api/repositories', () => ({ name: 'r', orgId: 'org_acme' })],
    ['POST', '/api/orgs/org_acme/repositories', () => ({ name: 'r' })],
    ['GET', '/api/repositories/repo_acme', () => undefined],
    ['GET', '/api/orgs/org_acme/repositories', () => undefined],
  ];
  it.each(USER_ROUTES)('%s %s → 403', async (method, path, body) => {
    const result = await call(emu.url, method, path.replace('{private}', ids.privatePlugin), {
      bearer: token.instanceRightScope,
      body: body(),
    });
    expect(result.status, JSON.stringify(result.body)).toBe(403);
  });
});

describe('role refusals name the entity kind in the plural', () => {
  it('a viewer installing on a repository is told it cannot install plugins on repositories', async () => {
    const result = await call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
      bearer: TOKENS.viewer,
      body: { name: 'dp', pluginId: ids.dataProvider, events: [], scopes: [] },
    });
    expect(result.status).toBe(403);
    expect(JSON.stringify(result.body)).toContain('install plugins on repositories');
    expect(JSON.stringify(result.body)).not.toContain('repositorys');
  });
});
