import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { requireRole, requireUser } from '../../auth/guards.js';
import { rotateWebhookSecret } from './service.js';
import { findVisiblePlugin, params, typed, type RouteOptions } from '../common.js';
import { Ok, WebhookSecretRotateSchema, WebhookSecretRotationSchema, errorResponses } from '../../../src/contract/index.js';

/** A day, as the real platforms give by default (Svix, Stripe): long enough to roll the new secret out. */
const DEFAULT_GRACE_SECONDS = 24 * 3600;

/** POST /api/plugins/:pluginId/webhook-secret/rotate `{ graceSeconds? }` (MEMBER or OWNER): a new webhook secret. */
export default async function webhookSecretRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  // No token is a 401 and an instance token a 403, before the body is looked at.
  app.addHook('preValidation', async (request) => {
    requireUser(request);
  });
  const schema = {
    params: params('pluginId'),
    body: WebhookSecretRotateSchema,
    response: { 200: Ok(WebhookSecretRotationSchema), ...errorResponses(400, 401, 403, 404, 413, 415) },
  };
  app.post('/plugins/:pluginId/webhook-secret/rotate', { schema }, async (request) => {
    const { pluginId } = request.params;
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'MEMBER', 'rotate webhook secrets');
    const graceSeconds = request.body?.graceSeconds ?? DEFAULT_GRACE_SECONDS;
    return ok(await rotateWebhookSecret(services, pluginId, graceSeconds));
  });
}
