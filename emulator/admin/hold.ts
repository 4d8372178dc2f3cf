import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { found } from '../errors.js';
import { params, typed, type RouteOptions } from '../api/common.js';
import { DeliveryHoldSchema, DeliveryHoldUpdateSchema, Ok, errorResponses } from '#contract';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

/** `/plugins/:pluginId/hold`: hold a plugin's deliveries while it is not up (PUT, renewable, bounded), release them (DELETE), read the hold (GET). */
export default async function adminHoldRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db, dispatcher } = services;
  const hold = Ok(DeliveryHoldSchema);
  const path = '/plugins/:pluginId/hold';

  app.get(
    path,
    {
      schema: {
        operationId: 'getDeliveryHold',
        tags: ['admin-deliveries'],
        summary: "Get a plugin's delivery hold",
        description: `${ADMIN_ONLY} reads whether a plugin's webhook deliveries are held, since and until when, and how many wait.`,
        params: params('pluginId'),
        response: { 200: hold, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      found(db.plugins.get(pluginId), 'plugin', pluginId);
      return ok(dispatcher.holdState(pluginId));
    },
  );

  app.put(
    path,
    {
      schema: {
        operationId: 'holdDeliveries',
        tags: ['admin-deliveries'],
        summary: "Hold a plugin's deliveries (or renew the hold)",
        description: `${ADMIN_ONLY} holds the webhook deliveries of a plugin, new and retried, while it is not up (plugsmith dev holds them while it starts or restarts the plugin): no attempt is made and none is spent; a WEBHOOK_CHALLENGE is never held. The hold ends by itself after \`forMs\` (default 60 s, at most 10 min) unless renewed by another PUT.`,
        params: params('pluginId'),
        body: DeliveryHoldUpdateSchema,
        response: { 200: hold, ...errorResponses(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      found(db.plugins.get(pluginId), 'plugin', pluginId);
      return ok(dispatcher.hold(pluginId, request.body.forMs));
    },
  );

  app.delete(
    path,
    {
      schema: {
        operationId: 'releaseDeliveries',
        tags: ['admin-deliveries'],
        summary: "Release a plugin's held deliveries",
        description: `${ADMIN_ONLY} ends the hold of a plugin: every delivery that waited goes at once, oldest first. Releasing a plugin that is not held changes nothing.`,
        params: params('pluginId'),
        response: { 200: hold, ...errorResponses(401, 403, 404, 415) },
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      found(db.plugins.get(pluginId), 'plugin', pluginId);
      return ok(dispatcher.releaseHold(pluginId));
    },
  );
}
