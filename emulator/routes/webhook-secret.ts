import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { requireRole, requireUser } from '../auth/guards.js';
import { MAX_ROTATION_GRACE_SECONDS, rotateWebhookSecret } from '../services/plugins.js';
import { findVisiblePlugin, params, type RouteOptions } from './common.js';

/** A day, as the real platforms give by default (Svix, Stripe): long enough to roll the new secret out. */
const DEFAULT_GRACE_SECONDS = 24 * 3600;

const rotateBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { graceSeconds: { type: 'number', minimum: 0, maximum: MAX_ROTATION_GRACE_SECONDS } },
} as const;

/**
 * POST /api/plugins/:pluginId/webhook-secret/rotate `{ graceSeconds? }` (MEMBER or OWNER of the
 * plugin's org): a new webhook secret; the previous one keeps signing beside it for the grace
 * period (default 24 h). Answers the new secret and when the previous one stops signing.
 */
export default async function webhookSecretRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;
  // No token is a 401 and an instance token a 403, before the body is looked at.
  app.addHook('preValidation', async (request) => {
    requireUser(request);
  });
  app.post('/plugins/:pluginId/webhook-secret/rotate', { schema: { params: params('pluginId'), body: rotateBody } }, async (request) => {
    const { pluginId } = request.params as { pluginId: string };
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'MEMBER', 'rotate webhook secrets');
    const graceSeconds = (request.body as { graceSeconds?: number } | null)?.graceSeconds ?? DEFAULT_GRACE_SECONDS;
    return ok(await rotateWebhookSecret(services, pluginId, graceSeconds));
  });
}
