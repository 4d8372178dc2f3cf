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
} from '../../../src/shared/contract/index.js';
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
    { schema: { body: PluginCreateWithOrgSchema, response: pluginResponse(201) } },
    async (request, reply) => {
      const { orgId, ...body } = request.body;
      return create(request, reply, orgId, body);
    },
  );

  app.post(
    '/orgs/:orgId/plugins',
    {
      schema: { params: params('orgId'), body: PluginCreateSchema, response: pluginResponse(201) },
      preValidation: async (request) => refuseOrgIdInBody(request),
    },
    async (request, reply) => create(request, reply, request.params.orgId, request.body),
  );

  app.get(
    '/plugins/marketplace',
    { schema: { querystring: ListQuery(PLUGIN_QUERY), response: listResponse } },
    async (request) =>
      listed(db.plugins, request.query, PLUGIN_QUERY, { where: [['isPublic', true]] }, (p) =>
        presentPlugin(services, request, p),
      ),
  );

  app.get(
    '/orgs/:orgId/plugins',
    {
      schema: {
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
    { schema: { params: params('pluginId'), response: pluginResponse(200) } },
    async (request) => {
      const plugin = findVisiblePlugin(services, request, request.params.pluginId);
      return ok(presentPlugin(services, request, plugin));
    },
  );

  app.put(
    '/plugins/:pluginId',
    {
      schema: {
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
