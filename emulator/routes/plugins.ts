import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../http.js';
import { EVENT_KINDS, PLUGIN_TYPES, SCOPES, type PluginRecord } from '../model.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import { hasRole, requireRole, requireUser } from '../auth/guards.js';
import { findOrg, findVisiblePlugin, params, refuseOrgIdInBody, requireValidSchemas, type RouteOptions } from './common.js';
import { roleIn } from '../auth/principal.js';
import type { Services } from '../services.js';
import { createPlugin, deletePlugin, updatePlugin, type PluginInput } from '../services/plugins.js';

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 10_000 },
  events: { type: 'array', items: { type: 'string', enum: EVENT_KINDS }, uniqueItems: true, maxItems: 50 },
  inputsSchema: { type: 'object' },
  isPublic: { type: 'boolean' },
  scopes: { type: 'array', items: { type: 'string', enum: SCOPES }, uniqueItems: true, maxItems: 50 },
  tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 50 }, uniqueItems: true, maxItems: 20 },
  type: { type: 'string', enum: PLUGIN_TYPES },
  webhookUrl: { type: ['string', 'null'], format: 'uri', pattern: '^https?://', maxLength: 2048 },
} as const;

const createBody = { type: 'object', additionalProperties: false, required: ['name', 'type'], properties: fields } as const;
const createInOrgBody = { ...createBody, required: ['name', 'type'], properties: { ...fields } } as const;
const createWithOrgBody = {
  ...createBody,
  required: ['name', 'type', 'orgId'],
  properties: { ...fields, orgId: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
const updateBody = { type: 'object', additionalProperties: false, minProperties: 1, properties: fields } as const;

/** Filterable and sortable plugin fields, and what `@search` looks at. */
export const PLUGIN_QUERY: QuerySpec = {
  fields: {
    id: 'string',
    name: 'string',
    description: 'string',
    type: 'string',
    orgId: 'string',
    isPublic: 'boolean',
    webhookUrl: 'string',
    webhookUrlIsVerified: 'boolean',
    tags: 'array',
    events: 'array',
    scopes: 'array',
    createdAt: 'string',
    updatedAt: 'string',
  },
  search: ['name', 'description', 'tags'],
};

type PluginBody = PluginInput;

/** A plugin as the caller may see it: the webhook secret only for its org's MEMBERs and OWNERs. */
export function presentPlugin(services: Services, request: FastifyRequest, plugin: PluginRecord): Record<string, unknown> {
  // The secret a rotation replaced is never shown: whoever needs it already has it.
  const { previousWebhookSecret: _previous, previousWebhookSecretExpiresAt: _expiresAt, ...shown } = plugin;
  if (hasRole(services.db, request.principal, plugin.orgId, 'MEMBER')) return shown;
  const { webhookSecret: _secret, ...rest } = shown;
  return rest;
}

/** Plugins: create (two paths), get, list by org, marketplace, update, delete. */
export default async function pluginRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;

  async function create(request: FastifyRequest, orgId: string, body: PluginBody) {
    requireUser(request);
    findOrg(services, orgId);
    requireRole(db, request, orgId, 'MEMBER', 'create plugins');
    requireValidSchemas(body as Record<string, unknown>, ['inputsSchema']);
    return ok(presentPlugin(services, request, await createPlugin(services, orgId, body)));
  }

  app.post('/plugins', { schema: { body: createWithOrgBody } }, async (request, reply) => {
    const { orgId, ...body } = request.body as PluginBody & { orgId: string };
    reply.status(201);
    return create(request, orgId, body);
  });

  app.post(
    '/orgs/:orgId/plugins',
    { schema: { params: params('orgId'), body: createInOrgBody }, preValidation: async (request) => refuseOrgIdInBody(request) },
    async (request, reply) => {
      const { orgId } = request.params as { orgId: string };
      reply.status(201);
      return create(request, orgId, request.body as PluginBody);
    },
  );

  app.get('/plugins/marketplace', async (request) => {
    const query = parseQuery(request.query as Record<string, string>, PLUGIN_QUERY);
    const result = runQuery(db.plugins, query, PLUGIN_QUERY, { where: [['isPublic', true]] });
    return ok(result.data.map((p) => presentPlugin(services, request, p)), { pagination: result.pagination });
  });

  app.get('/orgs/:orgId/plugins', { schema: { params: params('orgId') } }, async (request) => {
    requireUser(request);
    const { orgId } = request.params as { orgId: string };
    findOrg(services, orgId);
    const query = parseQuery(request.query as Record<string, string>, PLUGIN_QUERY);
    const member = roleIn(db, request.principal, orgId) !== null;
    const result = runQuery(db.plugins, query, PLUGIN_QUERY, {
      where: member ? [['orgId', orgId]] : [['orgId', orgId], ['isPublic', true]],
    });
    return ok(result.data.map((p) => presentPlugin(services, request, p)), { pagination: result.pagination });
  });

  app.get('/plugins/:pluginId', { schema: { params: params('pluginId') } }, async (request) => {
    requireUser(request);
    const { pluginId } = request.params as { pluginId: string };
    return ok(presentPlugin(services, request, findVisiblePlugin(services, request, pluginId)));
  });

  app.put('/plugins/:pluginId', { schema: { params: params('pluginId'), body: updateBody } }, async (request) => {
    const { pluginId } = request.params as { pluginId: string };
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'MEMBER', 'update plugins');
    const body = request.body as PluginBody;
    requireValidSchemas(body as Record<string, unknown>, ['inputsSchema']);
    return ok(presentPlugin(services, request, await updatePlugin(services, plugin, body)));
  });

  app.delete('/plugins/:pluginId', { schema: { params: params('pluginId') } }, async (request) => {
    const { pluginId } = request.params as { pluginId: string };
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'OWNER', 'delete plugins');
    await deletePlugin(services, pluginId);
    return ok({ id: pluginId, deleted: true });
  });
}
