import type { FastifyInstance, HTTPMethods } from 'fastify';

/** The methods an /_emulator route may have; any other is a 404 from the management app. */
const ADMIN_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Hands every /_emulator request, unread, to the admin app, built on its first request (later ones wait for it):
 * its some 60 routes took about half of an in-memory start, and a plugin's test suite mostly never calls it.
 */
export function forwardToAdminApp(
  app: FastifyInstance,
  build: () => Promise<FastifyInstance>,
): void {
  let admin: Promise<FastifyInstance> | undefined;
  let closing = false;
  app.route({
    method: ADMIN_METHODS,
    url: '/_emulator/*',
    schema: { hide: true },
    // Never runs: the hook below answers every request of this route.
    handler: async () => undefined,
    onRequest: (request, reply, done) => {
      reply.hijack();
      const response = reply.raw;
      if (closing) {
        response.statusCode = 503;
        response.setHeader('connection', 'close');
        response.end();
        return done();
      }
      admin ??= build();
      admin.then(
        (built) => built.routing(request.raw, response),
        (error: unknown) => {
          admin = undefined; // the next request tries again
          request.log.error({ err: error }, 'the admin API did not build');
          response.statusCode = 500;
          response.setHeader('content-type', 'application/json; charset=utf-8');
          response.end(
            JSON.stringify({
              ok: false,
              error: { message: 'Internal server error', error: 'SERVER_ERROR' },
            }),
          );
        },
      );
      done();
    },
  });
  // Its streams (the delivery log's) end with the management app.
  app.addHook('preClose', async () => {
    closing = true;
    if (admin) await (await admin.catch(() => undefined))?.close();
  });
}
