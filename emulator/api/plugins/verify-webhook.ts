import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { badRequest, detail } from '../../errors.js';
import { requireRole, requireUser } from '../../auth/guards.js';
import { recordWebhookVerification } from './service.js';
import { findVisiblePlugin, params, typed, type RouteOptions } from '../common.js';
import { Ok, WebhookVerificationSchema, errorResponses } from '../../../src/contract/index.js';

const response = { 200: Ok(WebhookVerificationSchema), ...errorResponses(400, 401, 403, 404) };

/** POST /api/plugins/:pluginId/verify-webhook: sends WEBHOOK_CHALLENGE and records whether the answer verifies the URL. */
export default async function verifyWebhookRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  // No token is a 401 and an instance token a 403, before anything else.
  app.addHook('preValidation', async (request) => {
    requireUser(request);
  });
  app.post('/plugins/:pluginId/verify-webhook', { schema: { params: params('pluginId'), response } }, async (request) => {
    const { pluginId } = request.params;
    const plugin = findVisiblePlugin(services, request, pluginId);
    requireRole(db, request, plugin.orgId, 'MEMBER', 'verify plugin webhooks');
    if (!plugin.webhookUrl) {
      throw badRequest(`plugin ${pluginId} has no webhookUrl to verify: set one with PUT /api/plugins/${pluginId} {"webhookUrl": "https://…"} first`, [
        detail(['webhookUrl'], 'required', 'a webhook URL', null, 'the plugin has no webhookUrl'),
      ]);
    }
    const result = await services.events.challenge(plugin);
    // The URL may have changed while the challenge was out: only the URL that answered is verified.
    // A challenge cut off by the emulator stopping proved nothing, so it changes nothing.
    if (!result.interrupted) await recordWebhookVerification(services, pluginId, plugin.webhookUrl, result.verified);
    return ok(result.verified ? { verified: true, deliveryId: result.deliveryId } : { verified: false, reason: result.reason, deliveryId: result.deliveryId });
  });
}
