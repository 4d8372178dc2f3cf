import Fastify, { type FastifyInstance } from 'fastify';
import type { Services } from './services.js';
import { AJV_OPTIONS, installErrorHandling } from './http.js';
import { principalFromHeader } from './auth/principal.js';
import pluginRoutes from './routes/plugins.js';
import { actionRoutes, externalEventRoutes } from './routes/plugin-definitions.js';
import repositoryRoutes from './routes/repositories.js';
import tokenRoutes from './routes/tokens.js';
import adminRoutes from './routes/admin.js';

/** Largest JSON body the management API reads (uploads go to storage URLs, not here). */
const BODY_LIMIT = 1024 * 1024;

/** Builds the management API app (`/api/…` and the admin API `/_emulator/…`); never listens. */
export async function buildManagementApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, ajv: AJV_OPTIONS, forceCloseConnections: true });
  installErrorHandling(app);
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
    },
    { prefix: '/api' },
  );
  await app.register(adminRoutes, { ...opts, prefix: '/_emulator' });
  return app;
}

/** Builds the messaging API app (`/conversations…`); never listens. */
export async function buildMessagingApp(_services: Services): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT, ajv: AJV_OPTIONS, forceCloseConnections: true });
  installErrorHandling(app);
  return app;
}
