import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../../http.js';
import type { PluginRecord } from '../../model.js';
import {
  DeletedSchema,
  ListQuery,
  Ok,
  OkPage,
  PluginCreateSchema,
  PluginCreateWithOrgSchema,
  PluginSchema,
  PluginUpdateSchema,
  errorResponses,
  type Plugin,
} from '#contract';
import { hasRole, requireRole, requireUser } from '../../auth/guards.js';
import {
  findOrg,
  findVisiblePlugin,
  listed,
  params,
  querySpec,
  refuseOrgIdInBody,
  requireValidSchemas,
  typed,
  type RouteOptions,
} from '../common.js';
import { roleIn } from '../../auth/principal.js';
import { createPlugin, deletePlugin, updatePlugin, type PluginInput } from './service.js';
import type { PluginDeps } from './service.js';
import { NO_CREDENTIAL } from '../../open-route.js';
import { linksTo, MADE_ID } from '../../openapi/links.js';

/** A plugin's answers: the secret is in the schema but only set for members. */
const pluginResponse = (status: 200 | 201) => ({
  [status]: Ok(PluginSchema),
  ...errorResponses(400, 401, 403, 404, 409, 413, 415),
});
const listResponse = { 200: OkPage(PluginSchema), ...errorResponses(400, 401, 403, 404) };

const PLUGIN_QUERY = querySpec(
  PluginSchema,
  [
    'id',
    'name',
    'description',
    'type',
    'orgId',
    'isPublic',
    'webhookUrl',
    'webhookUrlIsVerified',
    'tags',
    'events',
    'scopes',
    'createdAt',
    'updatedAt',
  ],
  ['name', 'description', 'tags'],
);

/** A plugin as the caller may see it: the webhook secret only for its org's MEMBERs and OWNERs. */
function presentPlugin(
  services: PluginDeps,
  request: FastifyRequest,
  plugin: PluginRecord,
): Plugin {
  const member = hasRole(services.db, request.principal, plugin.orgId, 'MEMBER');
  // Copied only when something must go: the record is read, never changed, on its way out.
  if (
    member &&
    plugin.previousWebhookSecret === undefined &&
    plugin.previousWebhookSecretExpiresAt === undefined
  )
    return plugin;
  // The secret a rotation replaced is never shown: whoever needs it already has it.
  const {
    previousWebhookSecret: _previous,
    previousWebhookSecretExpiresAt: _expiresAt,
    ...shown
  } = plugin;
  if (member) return shown;
  const { webhookSecret: _secret, ...rest } = shown;
  return rest;
}

/** What a client can do next with the plugin a create made (OpenAPI links). */
const PLUGIN_LINKS = linksTo(
  'plugin',
  { pluginId: MADE_ID },
  {
    getPlugin: 'Get {made}',
    updatePlugin: 'Update {made}',
    deletePlugin: 'Delete {made}',
    listActions: 'List the actions of {made}',
    createAction: 'Create an action on {made}',
    createExternalEvent: 'Create an external event on {made}',
    verifyWebhook: 'Send the WEBHOOK_CHALLENGE to the webhook URL of {made}',
    rotateWebhookSecret: 'Rotate the webhook signing secret of {made}',
  },
);

/** Plugins: create (two paths), get, list by org, marketplace, update, delete. */
export default async function pluginRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<PluginDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;

  async function create(
    request: FastifyRequest,
    reply: FastifyReply,
    orgId: string,
    body: PluginInput,
  ) {
    requireUser(request);
    findOrg(services, orgId);
    requireRole(db, request, orgId, 'MEMBER', 'create plugins');
    requireValidSchemas(body, ['inputsSchema']);
    const plugin = await createPlugin(services, orgId, body);
    return reply.status(201).send(ok(presentPlugin(services, request, plugin)));
  }

  app.post(
    '/plugins',
    {
      links: { 201: PLUGIN_LINKS },
      schema: {
        operationId: 'createPlugin',
        tags: ['plugins'],
        summary: 'Create a plugin (the org in the body)',
        description:
          'A MEMBER or OWNER of the org named by `orgId` in the body creates a plugin there; its webhook starts unverified. Sends no event.',
        body: PluginCreateWithOrgSchema,
        response: pluginResponse(201),
      },
    },
    async (request, reply) => {
      const { orgId, ...body } = request.body;
      return create(request, reply, orgId, body);
    },
  );

  app.post(
    '/orgs/:orgId/plugins',
    {
      links: { 201: PLUGIN_LINKS },
      schema: {
        operationId: 'createOrgPlugin',
        tags: ['plugins'],
        summary: 'Create a plugin in an org',
        description:
          'A MEMBER or OWNER of the org in the path creates a plugin there (`orgId` must not be in the body); its webhook starts unverified. Sends no event.',
        params: params('orgId'),
        body: PluginCreateSchema,
        response: pluginResponse(201),
      },
      preValidation: async (request) => refuseOrgIdInBody(request),
    },
    async (request, reply) => create(request, reply, request.params.orgId, request.body),
  );

  app.get(
    '/plugins/marketplace',
    {
      schema: {
        operationId: 'listMarketplacePlugins',
        tags: ['plugins'],
        summary: 'List the public plugins (no credential needed)',
        description:
          'Anyone, without a credential, lists the public plugins of every org, with the query system.',
        security: NO_CREDENTIAL,
        querystring: ListQuery(PLUGIN_QUERY),
        response: listResponse,
      },
    },
    async (request) =>
      listed(db.plugins, request.query, PLUGIN_QUERY, { where: [['isPublic', true]] }, (p) =>
        presentPlugin(services, request, p),
      ),
  );

  app.get(
    '/orgs/:orgId/plugins',
    {
      schema: {
        operationId: 'listOrgPlugins',
        tags: ['plugins'],
        summary: "List an org's plugins",
        description:
          "Any user token lists an org's plugins with the query system: a member sees all of them, anyone else only the public ones.",
        params: params('orgId'),
        querystring: ListQuery(PLUGIN_QUERY),
        response: listResponse,
      },
    },
    async (request) => {
      requireUser(request);
      const { orgId } = request.params;
      findOrg(services, orgId);
      const member = roleIn(db, request.principal, orgId) !== null;
      const where: Array<[string, unknown]> = member
        ? [['orgId', orgId]]
        : [
            ['orgId', orgId],
            ['isPublic', true],
          ];
      return listed(db.plugins, request.query, PLUGIN_QUERY, { where }, (p) =>
        presentPlugin(services, request, p),
      );
    },
  );

  app.get(
    '/plugins/:pluginId',
    {
      schema: {
        operationId: 'getPlugin',
        tags: ['plugins'],
        summary: 'Get a plugin',
        description:
          "A member of the plugin's org reads it, or any user token when it is public; otherwise a 404. Never shows the webhook secret.",
        params: params('pluginId'),
        response: pluginResponse(200),
      },
    },
    async (request) => {
      const plugin = findVisiblePlugin(services, request, request.params.pluginId);
      return ok(presentPlugin(services, request, plugin));
    },
  );

  app.put(
    '/plugins/:pluginId',
    {
      schema: {
        operationId: 'updatePlugin',
        tags: ['plugins'],
        summary: 'Update a plugin',
        description:
          "A MEMBER or OWNER of the plugin's org changes its fields; a new `webhookUrl` makes the webhook unverified again. Sends no event.",
        params: params('pluginId'),
        body: PluginUpdateSchema,
        response: pluginResponse(200),
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      const plugin = findVisiblePlugin(services, request, pluginId);
      requireRole(db, request, plugin.orgId, 'MEMBER', 'update plugins');
      const body = request.body;
      requireValidSchemas(body, ['inputsSchema']);
      return ok(presentPlugin(services, request, await updatePlugin(services, plugin, body)));
    },
  );

  app.delete(
    '/plugins/:pluginId',
    {
      schema: {
        operationId: 'deletePlugin',
        tags: ['plugins'],
        summary: 'Delete a plugin',
        description:
          "An OWNER of the plugin's org deletes it with its actions and external events; each of its instances is uninstalled first and sent PLUGIN_UNINSTALLED.",
        params: params('pluginId'),
        response: { 200: Ok(DeletedSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      const plugin = findVisiblePlugin(services, request, pluginId);
      requireRole(db, request, plugin.orgId, 'OWNER', 'delete plugins');
      await deletePlugin(services, pluginId);
      return ok({ id: pluginId, deleted: true });
    },
  );
}
