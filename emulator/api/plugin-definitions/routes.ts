import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { found } from '../../errors.js';
import { newId, nowIso } from '../../store/ids.js';
import { requireRole } from '../../auth/guards.js';
import type { Collection } from '../../store/store.js';
import {
  byName,
  createDefinition,
  deleteDefinition,
  updateDefinition,
  type Definition,
} from './service.js';
import {
  findVisiblePlugin,
  listed,
  params,
  querySpec,
  requireValidSchemas,
  typed,
  type RouteOptions,
} from '../common.js';
import {
  ActionCreateSchema,
  ActionSchema,
  ActionUpdateSchema,
  DeletedSchema,
  ExternalEventCreateSchema,
  ExternalEventSchema,
  ExternalEventUpdateSchema,
  ListQuery,
  Ok,
  OkPage,
  errorResponses,
} from '#contract';
import { linksTo } from '../../openapi/links.js';

/** Actions: /api/plugins/:pluginId/actions[/:name]; `schemaFields` hold JSON Schemas. */
const ACTIONS = {
  noun: 'action',
  segment: 'actions',
  param: 'name',
  schemaFields: ['argsSchema', 'returnSchema'],
  collection: ({ services }: RouteOptions): Collection<Definition> => services.db.actions,
  idPrefix: 'act',
  schemas: { create: ActionCreateSchema, update: ActionUpdateSchema, resource: ActionSchema },
  tag: 'actions',
  operations: {
    list: {
      operationId: 'listActions',
      summary: "List a plugin's actions",
      description: 'Whoever may read the plugin lists its actions, with the query system.',
    },
    get: {
      operationId: 'getAction',
      summary: 'Get an action',
      description: 'Whoever may read the plugin reads one of its actions, by name.',
    },
    create: {
      operationId: 'createAction',
      summary: 'Create an action',
      description:
        "A MEMBER or OWNER of the plugin's org adds an action (its name unique in the plugin; its JSON Schemas are checked).",
    },
    update: {
      operationId: 'updateAction',
      summary: 'Update an action',
      description:
        "A MEMBER or OWNER of the plugin's org changes an action, by name; its JSON Schemas are checked again.",
    },
    delete: {
      operationId: 'deleteAction',
      summary: 'Delete an action',
      description: "An OWNER of the plugin's org deletes an action, by name.",
    },
  },
};

/** External events: /api/plugins/:pluginId/external-events[/:eventName]. */
const EXTERNAL_EVENTS = {
  noun: 'external event',
  segment: 'external-events',
  param: 'eventName',
  schemaFields: ['payloadSchema'],
  collection: ({ services }: RouteOptions): Collection<Definition> => services.db.externalEvents,
  idPrefix: 'evt',
  schemas: {
    create: ExternalEventCreateSchema,
    update: ExternalEventUpdateSchema,
    resource: ExternalEventSchema,
  },
  tag: 'external-events',
  operations: {
    list: {
      operationId: 'listExternalEvents',
      summary: "List a plugin's external events",
      description:
        'Whoever may read the plugin lists its external events (events that come from third-party systems; the platform never emits them), with the query system.',
    },
    get: {
      operationId: 'getExternalEvent',
      summary: 'Get an external event',
      description: 'Whoever may read the plugin reads one of its external events, by name.',
    },
    create: {
      operationId: 'createExternalEvent',
      summary: 'Create an external event',
      description:
        "A MEMBER or OWNER of the plugin's org declares an external event (its name unique in the plugin; its JSON Schema is checked).",
    },
    update: {
      operationId: 'updateExternalEvent',
      summary: 'Update an external event',
      description: "A MEMBER or OWNER of the plugin's org changes an external event, by name.",
    },
    delete: {
      operationId: 'deleteExternalEvent',
      summary: 'Delete an external event',
      description: "An OWNER of the plugin's org deletes an external event, by name.",
    },
  },
};

// External events have the same fields as actions.
const DEFINITION_QUERY = querySpec(
  ActionSchema,
  ['id', 'name', 'title', 'description', 'createdAt', 'updatedAt'],
  ['name', 'title', 'description'],
);

/** The routes of a kind of plugin definition: read by whoever sees the plugin, changed by MEMBER or OWNER, deleted by OWNER. */
function definitionRoutes(kind: typeof ACTIONS | typeof EXTERNAL_EVENTS) {
  const { create: createBody, update: updateBody, resource } = kind.schemas;
  const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
  const one = { 200: Ok(resource), ...errors };
  const listParams = params('pluginId');
  const itemParams = params('pluginId', kind.param);
  // Each operation's OpenAPI metadata: its id, summary and description under the kind's tag.
  const doc = (operation: keyof typeof kind.operations) => ({
    ...kind.operations[operation],
    tags: [kind.tag],
  });
  const { get, update, delete: remove } = kind.operations;
  const createdLinks = linksTo(
    kind.noun,
    { pluginId: '$request.path.pluginId', [kind.param]: '$response.body#/data/name' },
    {
      [get.operationId]: 'Get {made}',
      [update.operationId]: 'Update {made}',
      [remove.operationId]: 'Delete {made}',
    },
  );

  return async function routes(fastify: FastifyInstance, options: RouteOptions): Promise<void> {
    const app = typed(fastify);
    const { services } = options;
    const collection = kind.collection(options);

    const find = (pluginId: string, name: string): Definition =>
      found(byName(collection, pluginId, name), kind.noun, name);

    const base = `/plugins/:pluginId/${kind.segment}`;
    const item = `${base}/:${kind.param}`;

    app.get(
      base,
      {
        schema: {
          ...doc('list'),
          params: listParams,
          querystring: ListQuery(DEFINITION_QUERY),
          response: { 200: OkPage(resource), ...errors },
        },
      },
      async (request) => {
        const { pluginId } = request.params;
        findVisiblePlugin(services, request, pluginId);
        return listed(collection, request.query, DEFINITION_QUERY, {
          where: [['pluginId', pluginId]],
        });
      },
    );

    app.get(
      item,
      { schema: { ...doc('get'), params: itemParams, response: one } },
      async (request) => {
        const p = request.params;
        findVisiblePlugin(services, request, p.pluginId);
        return ok(find(p.pluginId, p[kind.param]));
      },
    );

    app.post(
      base,
      {
        links: { 201: createdLinks },
        schema: {
          ...doc('create'),
          params: listParams,
          body: createBody,
          response: { 201: Ok(resource), ...errors },
        },
      },
      async (request, reply) => {
        const { pluginId } = request.params;
        const plugin = findVisiblePlugin(services, request, pluginId);
        requireRole(services.db, request, plugin.orgId, 'MEMBER', `add ${kind.noun}s`);
        const { name, title = '', description = '', ...schemas } = request.body;
        requireValidSchemas(schemas, kind.schemaFields);
        const now = nowIso();
        // The body's other fields are the kind's JSON Schemas (the body schema admits no others).
        const record: Definition = {
          id: newId(kind.idPrefix),
          pluginId,
          name,
          title,
          description,
          ...schemas,
          createdAt: now,
          updatedAt: now,
        };
        await createDefinition(services, collection, kind.noun, record);
        return reply.status(201).send(ok(record));
      },
    );

    app.put(
      item,
      { schema: { ...doc('update'), params: itemParams, body: updateBody, response: one } },
      async (request) => {
        const p = request.params;
        const plugin = findVisiblePlugin(services, request, p.pluginId);
        const existing = find(p.pluginId, p[kind.param]);
        requireRole(services.db, request, plugin.orgId, 'MEMBER', `update ${kind.noun}s`);
        const body = request.body;
        requireValidSchemas(body, kind.schemaFields);
        return ok(await updateDefinition(services, collection, kind.noun, existing, body));
      },
    );

    app.delete(
      item,
      {
        schema: {
          ...doc('delete'),
          params: itemParams,
          response: { 200: Ok(DeletedSchema), ...errors },
        },
      },
      async (request) => {
        const p = request.params;
        const plugin = findVisiblePlugin(services, request, p.pluginId);
        const existing = find(p.pluginId, p[kind.param]);
        requireRole(services.db, request, plugin.orgId, 'OWNER', `delete ${kind.noun}s`);
        await deleteDefinition(collection, existing);
        return ok({ id: existing.id, name: existing.name, deleted: true });
      },
    );
  };
}

/** Plugin actions. */
export const actionRoutes = definitionRoutes(ACTIONS);
/** Plugin external events. */
export const externalEventRoutes = definitionRoutes(EXTERNAL_EVENTS);
