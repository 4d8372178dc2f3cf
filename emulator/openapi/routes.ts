import type { FastifyInstance } from 'fastify';

/** GET /_emulator/openapi.json: open (it holds no data), plain OpenAPI rather than an envelope, so generators read it as it is. */
export default async function openApiRoutes(
  app: FastifyInstance,
  { openapi }: { openapi: () => Promise<Record<string, unknown>> },
): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async () => openapi());
}
