import type { FastifyInstance } from 'fastify';

/**
 * GET /_emulator/openapi.json: the OpenAPI document, open (the admin guard serves it without a
 * credential: it holds no data). Plain OpenAPI, not an envelope: generators read it as it is.
 */
export default async function openApiRoutes(app: FastifyInstance, { openapi }: { openapi: () => Promise<Record<string, unknown>> }): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async () => openapi());
}
