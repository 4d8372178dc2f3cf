import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { found } from '../errors.js';
import { params, typed, type RouteOptions } from '../api/common.js';
import {
  DeliveryHoldSchema,
  DeliveryHoldUpdateSchema,
  Ok,
  errorResponses,
} from '../../src/shared/contract/index.js';
import type { AdminDeps } from './common.js';

/**
 * ROUTE METADATA of this file's routes (operationId, tag, summary, description), read by
 * emulator/openapi/operations.ts and descriptions.ts until route schemas carry their own metadata:
 * then it moves into each route's `schema` below.
 */
export const HOLD_ROUTE_METADATA = {
  'GET /_emulator/plugins/{pluginId}/hold': {
    operationId: 'getDeliveryHold',
    tag: 'admin-deliveries',
    summary: "Get a plugin's delivery hold",
    description:
      "reads whether a plugin's webhook deliveries are held, since and until when, and how many wait.",
  },
  'PUT /_emulator/plugins/{pluginId}/hold': {
    operationId: 'holdDeliveries',
    tag: 'admin-deliveries',
    summary: "Hold a plugin's deliveries (or renew the hold)",
    description:
      'holds the webhook deliveries of a plugin, new and retried, while it is not up (plugsmith dev holds them while it starts or restarts the plugin): no attempt is made and none is spent; a WEBHOOK_CHALLENGE is never held. The hold ends by itself after `forMs` (default 60 s, at most 10 min) unless renewed by another PUT.',
  },
  'DELETE /_emulator/plugins/{pluginId}/hold': {
    operationId: 'releaseDeliveries',
    tag: 'admin-deliveries',
    summary: "Release a plugin's held deliveries",
    description:
      'ends the hold of a plugin: every delivery that waited goes at once, oldest first. Releasing a plugin that is not held changes nothing.',
  },
} as const;

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
