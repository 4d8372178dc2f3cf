import type { FastifyInstance } from 'fastify';
import {
  DeliverySchema,
  EVENT_DATA_SCHEMAS,
  EventEmitSchema,
  ListQuery,
  Ok,
  OkPage,
  PluginInstanceSchema,
  errorResponses,
} from '#contract';
import { ok } from '../http.js';
import { badRequest, detail, found } from '../errors.js';
import { validateAgainst } from '../validation/json-schema.js';
import { listed, typed, type RouteOptions } from '../api/common.js';
import { INSTANCE_QUERY } from '../api/instances/query.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

/** Events by hand (`plugsmith trigger --set/--data`, the dashboard's Trigger) to a plugin (and instance); instances of all entities. */
export default async function adminTriggerRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db, dispatcher } = services;

  // Signed, logged and retried like any delivery; SYNC by default so the caller sees the first attempt.
  app.post(
    '/events',
    {
      schema: {
        operationId: 'emitEvent',
        tags: ['admin-deliveries'],
        summary: 'Emit a platform event to a plugin',
        description: `${ADMIN_ONLY} emits a platform event (any event kind) to a plugin's instances, or WEBHOOK_CHALLENGE to a plugin, as the platform would: signed, logged and retried like any delivery.`,
        body: EventEmitSchema,
        response: { 201: Ok(DeliverySchema), ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // The payload a plugin meets must be one the platform could send: checked before anything else, nothing sent when it is not.
      const problems = validateAgainst(EVENT_DATA_SCHEMAS[body.type], body.data, ['data']);
      if (problems.length > 0)
        throw badRequest(`data does not match the ${body.type} event's schema`, problems);
      const plugin = found(db.plugins.get(body.pluginId), 'plugin', body.pluginId);
      if (!plugin.webhookUrl) {
        throw badRequest(`plugin ${plugin.id} has no webhookUrl to deliver to`, [
          detail(
            ['pluginId'],
            'no_webhook',
            'a plugin with a webhookUrl',
            plugin.id,
            "set the plugin's webhookUrl first",
          ),
        ]);
      }
      let instance = null;
      if (body.type === 'WEBHOOK_CHALLENGE' && body.pluginInstanceId !== undefined) {
        // The platform's challenge concerns the plugin, never an instance: its pluginInstanceId is null.
        throw badRequest(
          'WEBHOOK_CHALLENGE concerns the plugin, not an instance: leave out pluginInstanceId',
          [
            detail(
              ['pluginInstanceId'],
              'not_allowed',
              'no pluginInstanceId for WEBHOOK_CHALLENGE',
              body.pluginInstanceId,
              'a challenge carries no instance',
            ),
          ],
        );
      }
      if (body.pluginInstanceId !== undefined) {
        instance = db.instances.get(body.pluginInstanceId) ?? null;
        if (!instance || instance.pluginId !== plugin.id) {
          throw badRequest(
            `plugin instance ${body.pluginInstanceId} is not an instance of plugin ${plugin.id}`,
            [
              detail(
                ['pluginInstanceId'],
                'not_found',
                `an instance of plugin ${plugin.id}`,
                body.pluginInstanceId,
                'unknown instance for this plugin',
              ),
            ],
          );
        }
      } else if (body.type !== 'WEBHOOK_CHALLENGE') {
        throw badRequest(`${body.type} concerns an instance: pass pluginInstanceId`, [
          detail(
            ['pluginInstanceId'],
            'required',
            'an instance id',
            undefined,
            'pluginInstanceId is required for this event kind',
          ),
        ]);
      }
      // An event goes only to a plugin that subscribes: a manual trigger says so instead of doing nothing.
      const delivery = await dispatcher.emit(body.type, {
        plugin,
        instance,
        data: body.data,
        mode: body.mode ?? 'SYNC',
      });
      if (!delivery) {
        throw badRequest(
          `plugin ${plugin.id}${instance ? ` (instance ${instance.id})` : ''} does not subscribe to ${body.type}`,
          [
            detail(
              ['type'],
              'not_subscribed',
              `one of ${[...new Set([...plugin.events])].join(', ') || "the plugin's events"}`,
              body.type,
              "add the event to the plugin's (and the instance's) events",
            ),
          ],
        );
      }
      return reply.status(201).send(ok(delivery));
    },
  );

  app.get(
    '/instances',
    {
      schema: {
        operationId: 'listInstances',
        tags: ['admin'],
        summary: 'List plugin instances',
        description: `${ADMIN_ONLY} lists the plugin instances of every org (repositories, agents and apps), with the query system.`,
        querystring: ListQuery(INSTANCE_QUERY),
        response: { 200: OkPage(PluginInstanceSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listed(db.instances, request.query, INSTANCE_QUERY),
  );
}
