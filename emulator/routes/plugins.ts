import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../http.js';
import type { PluginRecord } from '../model.js';
import { DeletedSchema, ListQuery, Ok, OkPage, PluginCreateSchema, PluginCreateWithOrgSchema, PluginSchema, PluginUpdateSchema, errorResponses, type Plugin } from '../../src/contract/index.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import { hasRole, requireRole, requireUser } from '../auth/guards.js';
import { findOrg, findVisiblePlugin, params, refuseOrgIdInBody, requireValidSchemas, typed, type RouteOptions } from './common.js';
import { roleIn } from '../auth/principal.js';
import type { Services } from '../services.js';
import { createPlugin, deletePlugin, updatePlugin, type PluginInput } from '../services/plugins.js';

/** A plugin's answers: the contract's Plugin; the secret is in the schema but only set for members. */
const pluginResponse = { 200: Ok(PluginSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415) };
const createdResponse = { 201: Ok(PluginSchema), ...errorResponses(400, 401, 403, 404, 409, 413, 415) };
const listResponse = { 200: OkPage(PluginSchema), ...errorResponses(400, 401, 403, 404) };

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

/** A plugin as the caller may see it: the webhook secret only for its org's MEMBERs and OWNERs. */
export function presentPlugin(services: Services, request: FastifyRequest, plugin: PluginRecord): Plugin {
  const member = hasRole(services.db, request.principal, plugin.orgId, 'MEMBER');
  // Copied only when something must go: the record is read, never changed, on its way out.
  if (member && plugin.previousWebhookSecret === undefined && plugin.previousWebhookSecretExpiresAt === undefined) return plugin;
  // The secret a rotation replaced is never shown: whoever needs it already has it.
  const { previousWebhookSecret: _previous, previousWebhookSecretExpiresAt: _expiresAt, ...shown } = plugin;
  if (member) return shown;
  const { webhookSecret: _secret, ...rest } = shown;
  return rest;
}

/**
 * Marketplace pages as sent (JSON bytes from the route's own response serializer), by URL, for as
 * long as no plugin changes. The same pages are asked for again and again, and presenting and
 * serializing 20 plugins was most of such a request. A page is served from here only to a caller
 * who is a MEMBER of none of the orgs on it: that caller sees exactly what an anonymous one sees
 * (no secrets), and that is what the page holds. Kept as bytes, not text: an 8 KB page would
 * otherwise be measured and encoded to UTF-8 again on every request.
 */
class MarketplacePages {
  private version = -1;
  private readonly pages = new Map<string, { bytes: Buffer; orgIds: string[] }>();

  constructor(private readonly services: Services) {}

  /** The page for `url` if it is current and the caller may be given it. */
  get(url: string, request: FastifyRequest): Buffer | undefined {
    if (this.version !== this.services.db.plugins.version) return undefined;
    const page = this.pages.get(url);
    if (!page) return undefined;
    for (const orgId of page.orgIds) if (hasRole(this.services.db, request.principal, orgId, 'MEMBER')) return undefined;
    return page.bytes;
  }

  /** Keeps a page as an anonymous caller sees it. */
  set(url: string, bytes: Buffer, orgIds: string[]): void {
    const version = this.services.db.plugins.version;
    if (this.version !== version || this.pages.size >= MAX_MARKETPLACE_PAGES) {
      this.pages.clear();
      this.version = version;
    }
    this.pages.set(url, { bytes, orgIds });
  }
}
const MAX_MARKETPLACE_PAGES = 256;

/** Sends JSON already serialized by the route's response serializer. */
function sendSerialized(reply: FastifyReply, json: Buffer | string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

/** Most plugins `PluginAnswers` keeps answers for; it starts afresh when full. */
const PLUGIN_ANSWERS_MAX = 4096;

/**
 * GET /api/plugins/:id answers as sent (JSON text from the route's response serializer, which node
 * writes with the headers in one piece), per plugin and per view (with the secret for its org's
 * MEMBERs and OWNERs, without for everyone else), for as long as no plugin changes: a client polling
 * a plugin is answered without presenting and serializing it again. Kept by plugin id in a map of
 * the plugins asked for lately (any change to any plugin starts a new one), which a request reads
 * instead of the store's map of every plugin. Who may see the plugin, and which view, is decided on
 * every request, with the same checks as the handler's.
 */
class PluginAnswers {
  private version = -1;
  private answers = new Map<string, { plugin: PluginRecord; member?: string; visitor?: string }>();

  constructor(private readonly db: Services['db']) {}

  /** The kept answer for this caller; undefined when there is none, or when the full path would refuse. */
  get(request: FastifyRequest, pluginId: string): string | undefined {
    if (this.version !== this.db.plugins.version) return undefined;
    const known = this.answers.get(pluginId);
    if (known === undefined) return undefined;
    const { principal } = request;
    // No token, an installation token, or a plugin this caller may not see: the handler refuses.
    if (principal === null || principal.kind !== 'user') return undefined;
    const { orgId, isPublic } = known.plugin;
    if (!isPublic && !hasRole(this.db, principal, orgId, 'VIEWER')) return undefined;
    return hasRole(this.db, principal, orgId, 'MEMBER') ? known.member : known.visitor;
  }

  set(plugin: PluginRecord, member: boolean, text: string): void {
    if (this.version !== this.db.plugins.version || this.answers.size >= PLUGIN_ANSWERS_MAX) {
      this.version = this.db.plugins.version;
      this.answers = new Map();
    }
    let known = this.answers.get(plugin.id);
    if (known === undefined || known.plugin !== plugin) this.answers.set(plugin.id, (known = { plugin }));
    if (member) known.member = text;
    else known.visitor = text;
  }
}

/** Plugins: create (two paths), get, list by org, marketplace, update, delete. */
export default async function pluginRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  const { db } = services;

  async function create(request: FastifyRequest, orgId: string, body: PluginInput) {
    requireUser(request);
    findOrg(services, orgId);
    requireRole(db, request, orgId, 'MEMBER', 'create plugins');
    requireValidSchemas(body, ['inputsSchema']);
    return ok(presentPlugin(services, request, await createPlugin(services, orgId, body)));
  }

  app.post('/plugins', { schema: { body: PluginCreateWithOrgSchema, response: createdResponse } }, async (request, reply) => {
    const { orgId, ...body } = request.body;
    reply.status(201);
    return create(request, orgId, body);
  });

  app.post(
    '/orgs/:orgId/plugins',
    { schema: { params: params('orgId'), body: PluginCreateSchema, response: createdResponse }, preValidation: async (request) => refuseOrgIdInBody(request) },
    async (request, reply) => {
      const { orgId } = request.params;
      reply.status(201);
      return create(request, orgId, request.body);
    },
  );

  const marketplacePages = new MarketplacePages(services);
  app.get(
    '/plugins/marketplace',
    {
      schema: { querystring: ListQuery(PLUGIN_QUERY), response: listResponse },
      // A page kept for this very URL is answered here, before the query is parsed and validated
      // again: it was kept only after this URL's query passed validation (which reads the URL alone),
      // and the app's authentication hook has run before this one.
      onRequest: (request, reply, done) => {
        const known = marketplacePages.get(request.url, request);
        if (known === undefined) return done();
        sendSerialized(reply, known);
      },
    },
    async (request, reply) => {
      // A kept page went out from onRequest: this path builds one and keeps it.
      const query = parseQuery(request.query, PLUGIN_QUERY);
      const result = runQuery(db.plugins, query, PLUGIN_QUERY, { where: [['isPublic', true]] });
      const orgIds = [...new Set(result.data.map((p) => p.orgId))];
      const page = ok(result.data.map((p) => presentPlugin(services, request, p)), { pagination: result.pagination });
      const serialize = reply.getSerializationFunction('200');
      if (!serialize || orgIds.some((orgId) => hasRole(db, request.principal, orgId, 'MEMBER'))) return page;
      // As an anonymous caller sees it (no secrets): kept for the next caller of this page.
      const bytes = Buffer.from(serialize(page));
      marketplacePages.set(request.url, bytes, orgIds);
      return sendSerialized(reply, bytes);
    },
  );

  app.get('/orgs/:orgId/plugins', { schema: { params: params('orgId'), querystring: ListQuery(PLUGIN_QUERY), response: listResponse } }, async (request) => {
    requireUser(request);
    const { orgId } = request.params;
    findOrg(services, orgId);
    const query = parseQuery(request.query, PLUGIN_QUERY);
    const member = roleIn(db, request.principal, orgId) !== null;
    const result = runQuery(db.plugins, query, PLUGIN_QUERY, {
      where: member ? [['orgId', orgId]] : [['orgId', orgId], ['isPublic', true]],
    });
    return ok(result.data.map((p) => presentPlugin(services, request, p)), { pagination: result.pagination });
  });

  const pluginAnswers = new PluginAnswers(db);
  app.get(
    '/plugins/:pluginId',
    {
      schema: { params: params('pluginId'), response: pluginResponse },
      // A kept answer is sent here, before the path is validated again: answers are kept only by the
      // handler, for a plugin whose id (the same string, the record's own) passed validation then.
      // Who may see the plugin, and which view, is decided now as in the handler. Any refusal is left
      // to the full path below, so its status and order (400 before 404) stay as they are.
      onRequest: (request, reply, done) => {
        const known = pluginAnswers.get(request, request.params.pluginId);
        if (known === undefined) return done();
        sendSerialized(reply, known);
      },
    },
    async (request, reply) => {
      requireUser(request);
      const { pluginId } = request.params;
      const plugin = findVisiblePlugin(services, request, pluginId);
      const member = hasRole(db, request.principal, plugin.orgId, 'MEMBER');
      // A kept answer went out from onRequest: this path builds one and keeps it.
      const answer = ok(presentPlugin(services, request, plugin));
      const serialize = reply.getSerializationFunction('200');
      if (!serialize) return answer;
      const text = serialize(answer);
      pluginAnswers.set(plugin, member, text);
      return sendSerialized(reply, text);
    },
  );

  app.put('/plugins/:pluginId', { schema: { params: params('pluginId'), body: PluginUpdateSchema, response: pluginResponse } }, async (request) => {
    const { pluginId } = request.params;
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'MEMBER', 'update plugins');
    const body = request.body;
    requireValidSchemas(body, ['inputsSchema']);
    return ok(presentPlugin(services, request, await updatePlugin(services, plugin, body)));
  });

  app.delete('/plugins/:pluginId', { schema: { params: params('pluginId'), response: { 200: Ok(DeletedSchema), ...errorResponses(400, 401, 403, 404) } } }, async (request) => {
    const { pluginId } = request.params;
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'OWNER', 'delete plugins');
    await deletePlugin(services, pluginId);
    return ok({ id: pluginId, deleted: true });
  });
}
