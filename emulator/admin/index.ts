import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from './common.js';
import openApiRoutes from '../openapi/routes.js';
import deliveryRoutes from './deliveries.js';
import adminCharacterRoutes from './characters.js';
import adminAgentRoutes from './agents.js';
import adminCredentialRoutes from './credentials.js';
import adminConversationRoutes from './conversations.js';
import adminStoreRoutes from './store.js';
import adminTriggerRoutes from './trigger.js';
import adminFaultRoutes from './faults.js';
import adminScenarioRoutes from './scenario.js';
import adminHoldRoutes from './hold.js';
import adminOverviewRoutes from './overview.js';
import adminPluginOutputRoutes from './plugin-output.js';
import dashboardRoutes from '../dashboard/routes.js';
import { adminGuard, type AdminSettings } from './guard.js';

/** Every `/_emulator` route in one plugin whose one onRequest hook, the guard, decides who may call: no route checks callers itself. */
export default async function adminSurface(
  app: FastifyInstance,
  {
    services,
    access,
    openapi,
  }: {
    services: AdminDeps;
    access: AdminSettings;
    openapi: () => Promise<Record<string, unknown>>;
  },
): Promise<void> {
  app.addHook('onRequest', adminGuard(access));
  // GET /health and GET /openapi.json take no credential (`security: []` in their schemas): the guard serves them to anyone.
  await app.register(openApiRoutes, { openapi });
  const routes = [
    adminOverviewRoutes,
    deliveryRoutes,
    adminCharacterRoutes,
    adminAgentRoutes,
    adminCredentialRoutes,
    adminConversationRoutes,
    adminStoreRoutes,
    adminTriggerRoutes,
    adminFaultRoutes,
    adminScenarioRoutes,
    adminPluginOutputRoutes,
    adminHoldRoutes,
  ];
  for (const route of routes) await app.register(route, { services });
  await app.register(dashboardRoutes, { services, logins: access.logins });
}
