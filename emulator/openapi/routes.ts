import type { FastifyInstance } from 'fastify';
import { NO_CREDENTIAL } from '../open-route.js';

/** GET /_emulator/openapi.json: open (it holds no data), plain OpenAPI rather than an envelope, so generators read it as it is. */
export default async function openApiRoutes(
  app: FastifyInstance,
  { openapi }: { openapi: () => Promise<Record<string, unknown>> },
): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true, security: NO_CREDENTIAL } }, async () =>
    openapi(),
  );
}
