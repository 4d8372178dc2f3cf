import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { badRequest, detail } from '../../errors.js';
import { requireRole, requireUser } from '../../auth/guards.js';
import { recordWebhookVerification, rotateWebhookSecret } from './service.js';
import { findVisiblePlugin, params, typed, type RouteOptions } from '../common.js';
import {
  Ok,
  WebhookSecretRotateSchema,
  WebhookSecretRotationSchema,
  WebhookVerificationSchema,
  errorResponses,
} from '#contract';
import type { PluginDeps } from './service.js';

/** A day, as the real platforms give by default (Svix, Stripe): long enough to roll the new secret out. */
const DEFAULT_GRACE_SECONDS = 24 * 3600;

/** A plugin's webhook (MEMBER or OWNER): verify its URL with WEBHOOK_CHALLENGE, rotate its signing secret `{ graceSeconds? }`. */
export default async function webhookRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<PluginDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  // No token is a 401 and an instance token a 403, before anything else (the body too).
  app.addHook('preValidation', async (request) => void requireUser(request));

  const verifyResponse = {
    200: Ok(WebhookVerificationSchema),
    ...errorResponses(400, 401, 403, 404),
  };
  app.post(
    '/plugins/:pluginId/verify-webhook',
    {
      schema: {
        operationId: 'verifyWebhook',
        tags: ['webhooks'],
        summary: "Send the WEBHOOK_CHALLENGE to a plugin's webhook URL",
        description:
          "A MEMBER or OWNER of the plugin's org sends WEBHOOK_CHALLENGE to its webhook URL and waits for the answer: the webhook is verified when the plugin echoes the challenge. The delivery is logged like any other.",
        params: params('pluginId'),
        response: verifyResponse,
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      const plugin = findVisiblePlugin(services, request, pluginId);
      requireRole(db, request, plugin.orgId, 'MEMBER', 'verify plugin webhooks');
      if (!plugin.webhookUrl) {
        throw badRequest(
          `plugin ${pluginId} has no webhookUrl to verify: set one with PUT /api/plugins/${pluginId} {"webhookUrl": "https://…"} first`,
          [
            detail(
              ['webhookUrl'],
              'required',
              'a webhook URL',
              null,
              'the plugin has no webhookUrl',
            ),
          ],
        );
      }
      const result = await services.dispatcher.challenge(plugin);
      // The URL may have changed while the challenge was out: only the URL that answered is verified.
      // A challenge cut off by the emulator stopping proved nothing, so it changes nothing.
      if (!result.interrupted)
        await recordWebhookVerification(services, pluginId, plugin.webhookUrl, result.verified);
      return ok(
        result.verified
          ? { verified: true, deliveryId: result.deliveryId }
          : { verified: false, reason: result.reason, deliveryId: result.deliveryId },
      );
    },
  );

  const rotateSchema = {
    params: params('pluginId'),
    body: WebhookSecretRotateSchema,
    response: {
      200: Ok(WebhookSecretRotationSchema),
      ...errorResponses(400, 401, 403, 404, 413, 415),
    },
  };
  app.post(
    '/plugins/:pluginId/webhook-secret/rotate',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['webhooks'],
        summary: "Rotate a plugin's webhook signing secret",
        description:
          "A MEMBER or OWNER of the plugin's org gets a new signing secret (shown only in this answer); the previous one keeps signing beside it for `graceSeconds` (24 h without a body). Sends no event.",
        ...rotateSchema,
      },
    },
    async (request) => {
      const { pluginId } = request.params;
      const plugin = findVisiblePlugin(services, request, pluginId);
      requireRole(db, request, plugin.orgId, 'MEMBER', 'rotate webhook secrets');
      const graceSeconds = request.body?.graceSeconds ?? DEFAULT_GRACE_SECONDS;
      return ok(await rotateWebhookSecret(services, pluginId, graceSeconds));
    },
  );
}
