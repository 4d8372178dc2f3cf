import { call, emulator } from '../../../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Emulator } from '../../../../emulator/index.js';
import { apiAuthentication, buildManagementApp } from '../../../../emulator/app.js';
import { requireInstanceScope } from '../../../../emulator/auth/scopes.js';
import { ok } from '../../../../emulator/http.js';
import {
  install,
  verifiedPlugin,
  verifyReceived,
  WebhookServer,
} from '../../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../../kit/roles-seed.js';
import { emulatorInternals } from '../../../../emulator/internals.js';

let emu: Emulator;
let hook: WebhookServer;
/** A second management app on the same services with one route guarded by REPOSITORY_FILES_READ, as the files route will be. */
let scoped: FastifyInstance;
let scopedUrl: string;

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeScale: 0.01 } });
  hook = await WebhookServer.start();
  scoped = await buildManagementApp(emulatorInternals(emu));
  // Guarded as /api's own routes are: the authentication hook in the route's scope.
  await scoped.register(async (api) => {
    api.addHook('onRequest', apiAuthentication(emulatorInternals(emu)));
    api.get('/api/test/repositories/:repositoryId/files', async (request) => {
      const { repositoryId } = request.params as { repositoryId: string };
      const instance = requireInstanceScope(
        emulatorInternals(emu).db,
        request,
        'REPOSITORY_FILES_READ',
        {
          type: 'REPOSITORY',
          id: repositoryId,
        },
      );
      return ok({ instanceId: instance.id, files: [] });
    });
  });
  await scoped.listen({ port: 0, host: '127.0.0.1' });
  scopedUrl = `http://127.0.0.1:${(scoped.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await scoped.close();
  await hook.close();
});

const ENTITY_ROUTES = [
  {
    entityType: 'REPOSITORY',
    pluginType: 'DATA_PROVIDER',
    path: '/api/repositories/repo_acme/data-providers',
    entityId: 'repo_acme',
    extra: {},
  },
  {
    entityType: 'AGENT',
    pluginType: 'EVENT_HANDLER',
    path: '/api/agents/agent_acme/plugins',
    entityId: 'agent_acme',
    extra: {},
  },
  {
    entityType: 'APP',
    pluginType: 'APP',
    path: '/api/apps/app_slack/plugins',
    entityId: 'app_slack',
    extra: { orgId: 'org_acme' },
  },
] as const;

describe.each(ENTITY_ROUTES)(
  'instances on $path',
  ({ entityType, pluginType, path, entityId, extra }) => {
    it('installs with PLUGIN_INSTALLED (signed, with a working token) and uninstalls with PLUGIN_UNINSTALLED (token revoked)', async () => {
      const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
        type: pluginType,
        webhookUrl: hook.url,
        events: ['AGENT_MESSAGE_RECEIVED', 'REPOSITORY_FILE_ADDED'],
        scopes: ['REPOSITORY_FILES_READ', 'AGENT_MESSAGE_WRITE'],
        inputsSchema: {
          type: 'object',
          required: ['folder'],
          properties: { folder: { type: 'string' } },
        },
      });
      const body = {
        name: 'My install',
        pluginId: plugin.id,
        events: ['REPOSITORY_FILE_ADDED'],
        scopes: ['REPOSITORY_FILES_READ'],
        inputs: { folder: 'docs' },
        eventDispatchCondition: { when: 'always' },
        ...extra,
      };
      const { instance, accessToken, received } = await install(
        emu,
        hook,
        TOKENS.member,
        path,
        body,
      );
      expect(instance).toEqual({
        id: expect.stringMatching(/^pin_/),
        ...(entityType === 'AGENT' ? { agentId: entityId } : {}),
        entityId,
        entityType,
        eventDispatchCondition: { when: 'always' },
        eventDispatchMode: 'ASYNC',
        events: ['REPOSITORY_FILE_ADDED'],
        inputs: { folder: 'docs' },
        name: 'My install',
        orgId: 'org_acme',
        pluginId: plugin.id,
        scopes: ['REPOSITORY_FILES_READ'],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const event = verifyReceived(received, plugin.webhookSecret);
      expect(event).toMatchObject({
        type: 'PLUGIN_INSTALLED',
        pluginId: plugin.id,
        pluginInstanceId: instance.id,
        orgId: 'org_acme',
        data: { instance },
      });
      expect(accessToken).toMatch(/^psi_/);

      const listed = await call(emu.url, 'GET', `${path}?pluginId=${plugin.id}`, {
        bearer: TOKENS.viewer,
      });
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([instance]);

      // The token is an instance token: refused by user routes, accepted where its scope is checked.
      expect(
        (await call(emu.url, 'GET', '/api/orgs/org_acme/plugins', { bearer: accessToken })).status,
      ).toBe(403);
      // Also for plugins asked for by users first, a public one too.
      const publicOne = await call(emu.url, 'POST', '/api/plugins', {
        bearer: TOKENS.member,
        body: {
          name: 'Public one',
          type: 'APP',
          orgId: 'org_acme',
          isPublic: true,
        },
      });
      for (const id of [plugin.id, publicOne.body.data.id]) {
        for (const token of [TOKENS.member, TOKENS.viewer])
          expect((await call(emu.url, 'GET', `/api/plugins/${id}`, { bearer: token })).status).toBe(
            200,
          );
        expect(
          (await call(emu.url, 'GET', `/api/plugins/${id}`, { bearer: accessToken })).status,
        ).toBe(403);
      }
      const files = await call(scopedUrl, 'GET', '/api/test/repositories/repo_acme/files', {
        bearer: accessToken,
      });
      expect(files.status).toBe(entityType === 'REPOSITORY' ? 200 : 403);

      const removed = await call(emu.url, 'DELETE', `${path}/${instance.id}`, {
        bearer: TOKENS.owner,
      });
      expect(removed.status).toBe(200);
      expect(removed.body.data).toEqual({ id: instance.id, deleted: true });
      // Revoked at once, before the uninstall event is even delivered.
      expect(
        (
          await call(scopedUrl, 'GET', '/api/test/repositories/repo_acme/files', {
            bearer: accessToken,
          })
        ).status,
      ).toBe(401);
      const uninstalled = await emu.waitForDelivery({
        type: 'PLUGIN_UNINSTALLED',
        pluginInstanceId: instance.id,
      });
      expect(uninstalled.event).toMatchObject({ data: { instance } });
      expect(
        (await call(emu.url, 'GET', path, { bearer: TOKENS.viewer })).body.data.map(
          (i: { id: string }) => i.id,
        ),
      ).not.toContain(instance.id);
      expect(
        (await call(emu.url, 'DELETE', `${path}/${instance.id}`, { bearer: TOKENS.owner })).status,
      ).toBe(404);
    });
  },
);

describe('install rules', () => {
  const path = '/api/repositories/repo_acme/data-providers';

  async function expect400(body: Record<string, unknown>, message: RegExp, detailPath: string[]) {
    const result = await call(emu.url, 'POST', path, { bearer: TOKENS.member, body: body });
    expect(result.status).toBe(400);
    expect(result.body.error.error).toBe('VALIDATION_ERROR');
    expect(result.body.error.message).toMatch(message);
    expect(result.body.error.details.map((d: { path: string[] }) => d.path)).toContainEqual(
      detailPath,
    );
  }

  it('refuses a plugin of the wrong type, unverified, unknown, or private to another org', async () => {
    const handler = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
    });
    await expect400(
      { name: 'x', pluginId: handler.id, events: [], scopes: [] },
      /only DATA_PROVIDER plugins attach to repositories/,
      ['pluginId'],
    );

    const created = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'unverified',
        type: 'DATA_PROVIDER',
        webhookUrl: hook.url,
      },
    });
    await expect400(
      { name: 'x', pluginId: created.body.data.id, events: [], scopes: [] },
      /not verified: run POST \/api\/plugins\/.*\/verify-webhook/,
      ['pluginId'],
    );

    await expect400(
      { name: 'x', pluginId: 'plg_missing', events: [], scopes: [] },
      /plugin plg_missing not found/,
      ['pluginId'],
    );

    const foreign = await verifiedPlugin(emu, TOKENS.outsider, 'org_other', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
    });
    await expect400({ name: 'x', pluginId: foreign.id, events: [], scopes: [] }, /not found/, [
      'pluginId',
    ]);
    // Visible to the owner (member of both orgs), but still private to org_other.
    const result = await call(emu.url, 'POST', path, {
      bearer: TOKENS.owner,
      body: {
        name: 'x',
        pluginId: foreign.id,
        events: [],
        scopes: [],
      },
    });
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/private to org org_other/);
  });

  it('accepts a public plugin of another org', async () => {
    const shared = await verifiedPlugin(emu, TOKENS.outsider, 'org_other', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
      isPublic: true,
    });
    const { instance } = await install(emu, hook, TOKENS.member, path, {
      name: 'shared',
      pluginId: shared.id,
      events: [],
      scopes: [],
    });
    expect(instance.orgId).toBe('org_acme');
  });

  it("needs events and scopes among the plugin's and inputs that satisfy its inputsSchema, reporting every violation", async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
      events: ['REPOSITORY_FILE_ADDED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputsSchema: {
        type: 'object',
        required: ['folder'],
        properties: { folder: { type: 'string' } },
      },
    });
    const result = await call(emu.url, 'POST', path, {
      bearer: TOKENS.member,
      body: {
        name: 'x',
        pluginId: plugin.id,
        events: ['REPOSITORY_FILE_ADDED', 'AGENT_MESSAGE_RECEIVED'],
        scopes: ['AGENT_MESSAGE_WRITE'],
        inputs: { folder: 3 },
      },
    });
    expect(result.status).toBe(400);
    const paths = result.body.error.details.map((d: { path: string[] }) => d.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['events.1', 'scopes.0', 'inputs.folder']));
    await expect400(
      { name: 'x', pluginId: plugin.id, events: [], scopes: [] },
      /inputs.folder is required/,
      ['inputs', 'folder'],
    );
    await expect400({ name: 'x', pluginId: plugin.id, events: ['NOPE'], scopes: [] }, /.*/, [
      'events',
      '0',
    ]);
    await expect400(
      { name: 'x', pluginId: plugin.id, events: [], scopes: [], eventDispatchMode: 'LATER' },
      /.*/,
      ['eventDispatchMode'],
    );
    await expect400(
      { name: 'x', pluginId: plugin.id, events: [], scopes: [], orgId: 'org_acme' },
      /.*/,
      ['orgId'],
    );
  });

  it('lists with the shared query system', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    });
    const agentPath = '/api/agents/agent_acme/plugins';
    for (const [name, events, mode] of [
      ['alpha', [], 'ASYNC'],
      ['beta', ['AGENT_MESSAGE_RECEIVED'], 'SYNC'],
      ['gamma', ['AGENT_MESSAGE_RECEIVED'], 'ASYNC'],
    ] as const) {
      await install(emu, hook, TOKENS.member, agentPath, {
        name,
        pluginId: plugin.id,
        events,
        scopes: [],
        eventDispatchMode: mode,
      });
    }
    const names = async (query: string) =>
      (
        await call(emu.url, 'GET', `${agentPath}?pluginId=${plugin.id}&${query}`, {
          bearer: TOKENS.member,
        })
      ).body.data.map((i: { name: string }) => i.name);
    expect(await names('@sortBy=name&@sortOrder=asc')).toEqual(['alpha', 'beta', 'gamma']);
    expect(await names('events=AGENT_MESSAGE_RECEIVED&@sortBy=name&@sortOrder=desc')).toEqual([
      'gamma',
      'beta',
    ]);
    expect(await names('eventDispatchMode=SYNC')).toEqual(['beta']);
    expect(await names('@search=GAM')).toEqual(['gamma']);
    const paged = await call(emu.url, 'GET', `${agentPath}?pluginId=${plugin.id}&@limit=2`, {
      bearer: TOKENS.member,
    });
    expect(paged.body.meta.pagination).toMatchObject({ type: 'index', total: 3, hasNext: true });
    expect(
      (await call(emu.url, 'GET', `${agentPath}?@limit=abc`, { bearer: TOKENS.member })).body.error
        .message,
    ).toBe('Invalid query parameters');
  });

  it('binds an app to the org of its first instance', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.owner, 'org_acme', {
      type: 'APP',
      webhookUrl: hook.url,
      isPublic: true,
    });
    const appPath = '/api/apps/app_bound/plugins';
    // The owner belongs to two orgs: without orgId (or an org-limited token) the org cannot be guessed.
    const ambiguous = await call(emu.url, 'POST', appPath, {
      bearer: TOKENS.owner,
      body: {
        name: 'a',
        pluginId: plugin.id,
        events: [],
        scopes: [],
      },
    });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error.message).toMatch(/orgId/);
    const { instance } = await install(emu, hook, TOKENS.ownerLimitedToAcme, appPath, {
      name: 'a',
      pluginId: plugin.id,
      events: [],
      scopes: [],
    });
    expect(instance.orgId).toBe('org_acme');
    const clash = await call(emu.url, 'POST', appPath, {
      bearer: TOKENS.owner,
      body: {
        name: 'b',
        pluginId: plugin.id,
        events: [],
        scopes: [],
        orgId: 'org_other',
      },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.error.message).toMatch(/belongs to org org_acme/);
    // A member with a single org needs no orgId.
    await install(emu, hook, TOKENS.member, appPath, {
      name: 'c',
      pluginId: plugin.id,
      events: [],
      scopes: [],
    });
    expect(
      (
        await call(emu.url, 'GET', '/api/apps/app_nothing_here/plugins', {
          bearer: TOKENS.outsider,
        })
      ).body.data,
    ).toEqual([]);
  });

  it('uninstalls every instance when its plugin is deleted', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
      scopes: ['REPOSITORY_FILES_READ'],
    });
    const one = await install(emu, hook, TOKENS.member, path, {
      name: 'one',
      pluginId: plugin.id,
      events: [],
      scopes: ['REPOSITORY_FILES_READ'],
    });
    const two = await install(emu, hook, TOKENS.member, path, {
      name: 'two',
      pluginId: plugin.id,
      events: [],
      scopes: [],
    });
    expect(
      (await call(emu.url, 'DELETE', `/api/plugins/${plugin.id}`, { bearer: TOKENS.owner })).status,
    ).toBe(200);
    for (const { instance } of [one, two]) {
      expect(emulatorInternals(emu).db.instances.get(instance.id)).toBeUndefined();
      await emu.waitForDelivery({ type: 'PLUGIN_UNINSTALLED', pluginInstanceId: instance.id });
    }
    expect(
      (
        await call(scopedUrl, 'GET', '/api/test/repositories/repo_acme/files', {
          bearer: one.accessToken,
        })
      ).status,
    ).toBe(401);
  });
});
