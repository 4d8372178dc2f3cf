import Fastify, { type FastifyInstance } from 'fastify';
import type { Services } from './services.js';
import { AJV_OPTIONS, clientErrorHandler, frameworkErrors, installErrorHandling, lazyValidatorCompilers } from './http.js';
import { principalFromHeader } from './auth/principal.js';
import pluginRoutes from './routes/plugins.js';
import { actionRoutes, externalEventRoutes } from './routes/plugin-definitions.js';
import repositoryRoutes from './routes/repositories.js';
import tokenRoutes from './routes/tokens.js';
import instanceRoutes from './routes/instances.js';
import verifyWebhookRoutes from './routes/verify-webhook.js';
import conversationRoutes from './routes/messaging/conversations.js';
import agentMessageRoutes from './routes/messaging/agent-messages.js';
import uploadRoutes from './routes/uploads.js';
import repositoryFileRoutes from './routes/repository-files.js';
import { EmbeddedStorage } from './storage/embedded.js';
import { embeddedStorageRoutes } from './storage/embedded-routes.js';
import { installJsonBodyParser } from './json-body.js';
import adminSurface from './admin/index.js';

/** Largest JSON body the management API reads (uploads go to storage URLs, not here). */
const BODY_LIMIT = 1024 * 1024;

/** Builds the management API app (`/api/…` and the admin API `/_emulator/…`); never listens. */
export async function buildManagementApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, ajv: AJV_OPTIONS, schemaController: lazyValidatorCompilers(), forceCloseConnections: true, frameworkErrors, clientErrorHandler });
  installErrorHandling(app);
  installJsonBodyParser(app);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api')) {
      request.principal = principalFromHeader(services.db, request.headers.authorization);
    }
  });
  const opts = { services };
  await app.register(
    async (api) => {
      await api.register(tokenRoutes, opts);
      await api.register(pluginRoutes, opts);
      await api.register(actionRoutes, opts);
      await api.register(externalEventRoutes, opts);
      await api.register(repositoryRoutes, opts);
      await api.register(verifyWebhookRoutes, opts);
      await api.register(instanceRoutes, opts);
      await api.register(agentMessageRoutes, opts);
      await api.register(uploadRoutes, opts);
      await api.register(repositoryFileRoutes, opts);
    },
    { prefix: '/api' },
  );
  if (services.storage instanceof EmbeddedStorage) await app.register(embeddedStorageRoutes(services.storage), { prefix: '/_storage' });
  // Every /_emulator route, behind the admin surface's one guard.
  await app.register(adminSurface, { services, access: services.config.admin, prefix: '/_emulator' });
  return app;
}

/** Builds the messaging API app (`/conversations…`); never listens. */
export async function buildMessagingApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, ajv: AJV_OPTIONS, schemaController: lazyValidatorCompilers(), forceCloseConnections: true, frameworkErrors, clientErrorHandler });
  installErrorHandling(app);
  installJsonBodyParser(app);
  await app.register(conversationRoutes, { services });
  // Event streams are hijacked responses: end them, or close() would wait for their clients.
  app.addHook('preClose', async () => services.messaging.streams.closeAll());
  return app;
}
