import { Type } from '@sinclair/typebox';
import {
  DeletedSchema,
  InstanceCreateSchema,
  ListQuery,
  Ok,
  OkPage,
  PluginInstanceSchema,
  errorResponses,
  type InstanceCreate,
} from '#contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../../http.js';
import { badRequest, detail, notFound, type ErrorDetail } from '../../errors.js';
import { newId, nowIso } from '../../store/ids.js';
import { hasRole, requireRole, requireUser } from '../../auth/guards.js';
import { validateAgainst } from '../../validation/json-schema.js';
import { installInstance, uninstallInstance } from './service.js';
import type { InstanceEntityType, InstanceRecord, PluginRecord, PluginType } from '../../model.js';
import { listed, params, typed, type RouteOptions } from '../common.js';
import { INSTANCE_QUERY } from './query.js';
import type { InstanceDeps } from './service.js';
import { owningOrg } from '../owning-org.js';
import { linksTo, MADE_ID } from '../../openapi/links.js';
import { INSTALL_TARGETS, installsPath } from '#contract/installs';

/** Install bodies: only apps take `orgId` (repositories and agents have their org). */
const installBody = Type.Omit(InstanceCreateSchema, ['orgId'], {
  additionalProperties: false,
  examples: InstanceCreateSchema.examples,
});

const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);

/** One kind of entity instances attach to, and how to find its org for the caller. */
interface EntityKind {
  entityType: InstanceEntityType;
  /** Its route under /api, its plugin type and its collection's name: the contract's one install mapping. */
  path: string;
  param: string;
  pluginType: PluginType;
  nouns: string;
  /** The org of the entity the caller may see, or a 404; null when the entity has no org yet (an app without instances). */
  orgOf(services: InstanceDeps, request: FastifyRequest, entityId: string): string | null;
  /** The org a new instance goes to, when the body may name it (apps, which are not stored on their own). */
  orgForInstall?(
    services: InstanceDeps,
    request: FastifyRequest,
    entityId: string,
    body: InstanceCreate,
  ): string;
  /** The OpenAPI metadata of its three operations (tag `instances`). */
  operations: Record<'install' | 'list' | 'uninstall', OperationText>;
}

/** What the OpenAPI document says of one operation beyond its schemas. */
interface OperationText {
  operationId: string;
  summary: string;
  description: string;
}

/** The org of a stored entity whose org the caller belongs to; a 404 otherwise (private things stay hidden). */
function storedEntityOrg(collection: 'repositories' | 'agents', noun: string) {
  return (services: InstanceDeps, request: FastifyRequest, entityId: string): string => {
    const entity = services.db[collection].get(entityId);
    if (!entity || !hasRole(services.db, request.principal, entity.orgId, 'VIEWER'))
      throw notFound(noun, entityId);
    return entity.orgId;
  };
}

/** The org an app belongs to: the org of its existing instances (apps are not stored otherwise). */
function appOrg(services: InstanceDeps, request: FastifyRequest, appId: string): string | null {
  const existing = services.db.instances
    .where('entityId', appId)
    .find((i) => i.entityType === 'APP');
  if (!existing) return null;
  if (!hasRole(services.db, request.principal, existing.orgId, 'VIEWER'))
    throw notFound('app', appId);
  return existing.orgId;
}

/** The org of a new APP instance: the app's, else the owning-org rule (body, token, the caller's only org). */
function appInstallOrg(
  services: InstanceDeps,
  request: FastifyRequest,
  appId: string,
  body: InstanceCreate,
): string {
  return owningOrg(services.db, request, {
    fixed: appOrg(services, request, appId),
    of: `app ${appId}`,
    given: body.orgId,
    ask: 'Pass "orgId" in the body: the org of the app to install the plugin on',
  });
}

/** What the contract's install mapping (INSTALL_TARGETS) says of an entity type, with the route's parameter. */
function fromMapping(
  entityType: InstanceEntityType,
  param: string,
): Pick<EntityKind, 'entityType' | 'path' | 'param' | 'pluginType' | 'nouns'> {
  const target = INSTALL_TARGETS[entityType];
  return {
    entityType,
    path: installsPath(entityType, `:${param}`),
    param,
    pluginType: target.pluginType,
    nouns: target.entities,
  };
}

const KINDS: EntityKind[] = [
  {
    ...fromMapping('REPOSITORY', 'repositoryId'),
    orgOf: storedEntityOrg('repositories', 'repository'),
    operations: {
      install: {
        operationId: 'installDataProvider',
        summary: 'Install a plugin on a repository as a data provider',
        description:
          "A MEMBER or OWNER of the repository's org installs a plugin (usually a DATA_PROVIDER with a verified webhook) on it; the new instance's access token is sent to the plugin in PLUGIN_INSTALLED.",
      },
      list: {
        operationId: 'listDataProviders',
        summary: "List a repository's data providers",
        description:
          "A member of the repository's org lists the plugin instances installed on it as data providers, with the query system.",
      },
      uninstall: {
        operationId: 'uninstallDataProvider',
        summary: 'Uninstall a data provider',
        description:
          "An OWNER of the repository's org uninstalls a data provider: its access token stops working and the plugin is sent PLUGIN_UNINSTALLED.",
      },
    },
  },
  {
    ...fromMapping('AGENT', 'agentId'),
    orgOf: storedEntityOrg('agents', 'agent'),
    operations: {
      install: {
        operationId: 'installAgentPlugin',
        summary: 'Install a plugin on an agent',
        description:
          "A MEMBER or OWNER of the agent's org installs a plugin on it (an EVENT_HANDLER receives the agent's AGENT_MESSAGE_RECEIVED); the new instance's access token is sent in PLUGIN_INSTALLED.",
      },
      list: {
        operationId: 'listAgentPlugins',
        summary: "List an agent's plugin instances",
        description:
          "A member of the agent's org lists the plugin instances installed on it, with the query system.",
      },
      uninstall: {
        operationId: 'uninstallAgentPlugin',
        summary: 'Uninstall a plugin from an agent',
        description:
          "An OWNER of the agent's org uninstalls a plugin from it: its access token stops working and the plugin is sent PLUGIN_UNINSTALLED.",
      },
    },
  },
  {
    ...fromMapping('APP', 'appId'),
    orgOf: appOrg,
    orgForInstall: appInstallOrg,
    operations: {
      install: {
        operationId: 'installAppPlugin',
        summary: 'Install a plugin on an app',
        description:
          "A MEMBER or OWNER of the app's org installs a plugin on it; the new instance's access token is sent in PLUGIN_INSTALLED.",
      },
      list: {
        operationId: 'listAppPlugins',
        summary: "List an app's plugin instances",
        description:
          "A member of the app's org lists the plugin instances installed on it, with the query system.",
      },
      uninstall: {
        operationId: 'uninstallAppPlugin',
        summary: 'Uninstall a plugin from an app',
        description:
          "An OWNER of the app's org uninstalls a plugin from it: its access token stops working and the plugin is sent PLUGIN_UNINSTALLED.",
      },
    },
  },
];

/** Most distinct reasons a refused install's message lists; the details hold the rest. */
const MAX_REASONS_IN_MESSAGE = 10;

/** Checks the plugin of an install: visible, of the entity's type, verified, usable by the org; events, scopes and inputs its own. */
function checkInstall(
  services: InstanceDeps,
  request: FastifyRequest,
  kind: EntityKind,
  orgId: string,
  body: InstanceCreate,
): PluginRecord {
  const plugin = services.db.plugins.get(body.pluginId);
  if (
    !plugin ||
    (!plugin.isPublic && !hasRole(services.db, request.principal, plugin.orgId, 'VIEWER'))
  ) {
    throw badRequest(`plugin ${body.pluginId} not found`, [
      detail(
        ['pluginId'],
        'not_found',
        'the id of a plugin you can see',
        body.pluginId,
        `plugin ${body.pluginId} does not exist or is private to another org`,
      ),
    ]);
  }
  const problems: ErrorDetail[] = [];
  if (plugin.type !== kind.pluginType) {
    problems.push(
      detail(
        ['pluginId'],
        'invalid_plugin_type',
        kind.pluginType,
        plugin.type,
        `plugin ${plugin.id} is ${plugin.type}; only ${kind.pluginType} plugins attach to ${kind.nouns}`,
      ),
    );
  }
  if (!plugin.webhookUrl || !plugin.webhookUrlIsVerified) {
    problems.push(
      detail(
        ['pluginId'],
        'webhook_not_verified',
        'a plugin with a verified webhookUrl',
        plugin.webhookUrl ?? null,
        plugin.webhookUrl
          ? `plugin ${plugin.id}'s webhook is not verified: run POST /api/plugins/${plugin.id}/verify-webhook (plugsmith plugins verify ${plugin.id})`
          : `plugin ${plugin.id} has no webhookUrl: set one with PUT /api/plugins/${plugin.id}, then verify it`,
      ),
    );
  }
  if (plugin.orgId !== orgId && !plugin.isPublic) {
    problems.push(
      detail(
        ['pluginId'],
        'plugin_not_usable',
        `a plugin of org ${orgId} or a public plugin`,
        plugin.id,
        `plugin ${plugin.id} is private to org ${plugin.orgId} and cannot be installed in org ${orgId}`,
      ),
    );
  }
  for (const [field, noun] of [
    ['events', 'event'],
    ['scopes', 'scope'],
  ] as const) {
    const offered: readonly string[] = plugin[field];
    body[field].forEach((value, i) => {
      if (offered.includes(value)) return;
      problems.push(
        detail(
          [field, String(i)],
          'not_in_plugin',
          `one of the plugin's ${field} (${offered.join(', ') || 'none'})`,
          value,
          `${noun} ${value} is not among plugin ${plugin.id}'s ${field}`,
        ),
      );
    });
  }
  // One at a time: spread onto the stack, ~180,000 problems overflowed it (a 500).
  for (const problem of validateAgainst(plugin.inputsSchema, body.inputs ?? {}, ['inputs']))
    problems.push(problem);
  if (problems.length > 0) {
    const reasons = [...new Set(problems.map((p) => p.message))];
    const shown = reasons.slice(0, MAX_REASONS_IN_MESSAGE).join('; ');
    const rest = reasons.length - MAX_REASONS_IN_MESSAGE;
    throw badRequest(
      `Cannot install plugin ${plugin.id}: ${shown}${rest > 0 ? `; and ${rest} more (see details)` : ''}`,
      problems,
    );
  }
  return plugin;
}

/** The routes of one entity kind: install (POST), list (GET), uninstall (DELETE). */
function entityInstanceRoutes(kind: EntityKind) {
  const body = kind.orgForInstall ? InstanceCreateSchema : installBody;
  const entityParams = params(kind.param);
  const doc = (operation: keyof EntityKind['operations']) => ({
    ...kind.operations[operation],
    tags: ['instances'],
  });
  const installedLinks = linksTo(
    'installation',
    { [kind.param]: `$request.path.${kind.param}`, pluginInstanceId: MADE_ID },
    { [kind.operations.uninstall.operationId]: 'Uninstall {made}' },
  );

  return async function routes(
    fastify: FastifyInstance,
    { services }: RouteOptions<InstanceDeps>,
  ): Promise<void> {
    const app = typed(fastify);
    const { db } = services;
    // Only user tokens manage instances: no token is a 401 and an instance token a 403, before the body is looked at.
    app.addHook('preValidation', async (request) => void requireUser(request));

    app.post(
      kind.path,
      {
        links: { 201: installedLinks },
        schema: {
          ...doc('install'),
          params: entityParams,
          body,
          response: { 201: Ok(PluginInstanceSchema), ...errors },
        },
      },
      async (request, reply) => {
        const id = request.params[kind.param];
        const input: InstanceCreate = request.body;
        const orgId = kind.orgForInstall
          ? kind.orgForInstall(services, request, id, input)
          : kind.orgOf(services, request, id)!;
        requireRole(db, request, orgId, 'MEMBER', `install plugins on ${kind.nouns}`);
        checkInstall(services, request, kind, orgId, input);
        const now = nowIso();
        const instance: InstanceRecord = {
          id: newId('pin'),
          ...(kind.entityType === 'AGENT' ? { agentId: id } : {}),
          entityId: id,
          entityType: kind.entityType,
          eventDispatchCondition: input.eventDispatchCondition ?? null,
          eventDispatchMode: input.eventDispatchMode ?? 'ASYNC',
          events: input.events,
          inputs: input.inputs ?? {},
          name: input.name,
          orgId,
          pluginId: input.pluginId,
          scopes: input.scopes,
          createdAt: now,
          updatedAt: now,
        };
        await installInstance(services, instance);
        return reply.status(201).send(ok(instance));
      },
    );

    const listSchema = {
      ...doc('list'),
      params: entityParams,
      querystring: ListQuery(INSTANCE_QUERY),
      response: { 200: OkPage(PluginInstanceSchema), ...errors },
    };
    app.get(kind.path, { schema: listSchema }, async (request) => {
      const id = request.params[kind.param];
      const orgId = kind.orgOf(services, request, id);
      const where: Array<[string, unknown]> = [
        ['entityId', id],
        ['entityType', kind.entityType],
      ];
      return listed(db.instances, request.query, INSTANCE_QUERY, {
        where,
        visible: (instance) => instance.orgId === orgId,
      });
    });

    const deleteSchema = {
      ...doc('uninstall'),
      params: params(kind.param, 'pluginInstanceId'),
      response: { 200: Ok(DeletedSchema), ...errors },
    };
    app.delete(`${kind.path}/:pluginInstanceId`, { schema: deleteSchema }, async (request) => {
      const id = request.params[kind.param];
      const { pluginInstanceId } = request.params;
      kind.orgOf(services, request, id);
      const instance = db.instances.get(pluginInstanceId);
      if (!instance || instance.entityType !== kind.entityType || instance.entityId !== id)
        throw notFound('plugin instance', pluginInstanceId);
      requireRole(db, request, instance.orgId, 'OWNER', `remove plugins from ${kind.nouns}`);
      if (!(await uninstallInstance(services, instance)))
        throw notFound('plugin instance', pluginInstanceId);
      return ok({ id: instance.id, deleted: true });
    });
  };
}

/** Plugin instances: data providers on repositories, event handlers on agents, apps' plugins. */
export default async function instanceRoutes(
  app: FastifyInstance,
  options: RouteOptions<InstanceDeps>,
): Promise<void> {
  for (const kind of KINDS) await app.register(entityInstanceRoutes(kind), options);
}
