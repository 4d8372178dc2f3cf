import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import type { RouteOptions } from '../api/common.js';
import { HealthSchema, Ok, errorResponses } from '../../src/contract/index.js';

/** `GET /_emulator/health`: open, and answered once the emulator serves. */
export default async function adminRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  app.get('/health', { schema: { response: { 200: Ok(HealthSchema), ...errorResponses(401, 403) } } }, async () =>
    ok({
      status: 'ok',
      managementUrl: services.config.publicUrl(),
      messagingUrl: services.config.messagingUrl(),
      persistent: services.store.persistent,
      storeId: services.config.storeId,
      pid: process.pid,
    }),
  );
}
