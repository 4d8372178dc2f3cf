import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import openApiRoutes from '../openapi/routes.js';
import deliveryRoutes from './deliveries.js';
import adminCharacterRoutes from './characters.js';
import adminAgentRoutes from './agents.js';
import adminCredentialRoutes from './credentials.js';
import adminConversationRoutes from './conversations.js';
import adminStoreRoutes from './store.js';
import adminEventRoutes from './events.js';
import adminFaultRoutes from './faults.js';
import adminScenarioRoutes from './scenario.js';
import adminOverviewRoutes from './overview.js';
import dashboardRoutes from '../dashboard/routes.js';
import { adminGuard } from './guard.js';

/** Every `/_emulator` route in one plugin whose one onRequest hook, the guard, decides who may call: no route checks callers itself. */
export default async function adminSurface(
  app: FastifyInstance,
  {
    services,
    access,
    openapi,
  }: {
    services: EmulatorContext;
    access: EmulatorContext['config']['admin'];
    openapi: () => Promise<Record<string, unknown>>;
  },
): Promise<void> {
  app.addHook('onRequest', adminGuard(access));
  // GET /health and GET /openapi.json are the open paths: the guard serves them without a credential.
  await app.register(openApiRoutes, { openapi });
  const routes = [
    adminOverviewRoutes,
    deliveryRoutes,
    adminCharacterRoutes,
    adminAgentRoutes,
    adminCredentialRoutes,
    adminConversationRoutes,
    adminStoreRoutes,
    adminEventRoutes,
    adminFaultRoutes,
    adminScenarioRoutes,
  ];
  for (const route of routes) await app.register(route, { services });
  await app.register(dashboardRoutes, { services, logins: access.logins });
}
