import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../http.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import { presentDelivery, RedeliveryRefused, type AttemptNotice } from '../events/dispatcher.js';
import { params, type RouteOptions } from './common.js';
import { isLoopback } from '../auth/loopback.js';

/** Filterable and sortable delivery fields, and what `@search` looks at. */
export const DELIVERY_QUERY: QuerySpec = {
  fields: {
    id: 'string',
    eventId: 'string',
    type: 'string',
    status: 'string',
    pluginId: 'string',
    pluginInstanceId: 'string',
    orgId: 'string',
    url: 'string',
    mode: 'string',
    redeliveryOf: 'string',
    nextAttemptAt: 'string',
    createdAt: 'string',
    updatedAt: 'string',
  },
  search: ['type', 'eventId', 'url'],
};

/** How often the stream sends a comment so proxies and clients keep it open. */
const KEEP_ALIVE_MS = 15_000;
const STREAM_FILTERS = ['pluginId', 'type', 'status', 'pluginInstanceId'] as const;

/** The loopback check, kept importable from here for existing callers; it lives in auth/loopback.ts. */
export { isLoopback };

/**
 * The delivery log under /_emulator (no token): list, one delivery, redeliver, and a
 * server-sent-events stream of attempts. Served to loopback callers only, because the logged
 * bodies hold installation access tokens.
 */
export default async function deliveryRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db, events } = services;

  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!isLoopback(request.socket.remoteAddress)) {
      throw forbidden('The delivery log is served only to callers on this machine (it holds access tokens)');
    }
  });

  app.get('/deliveries', async (request) => {
    const query = parseQuery(request.query as Record<string, string>, DELIVERY_QUERY);
    const result = runQuery(db.deliveries, query, DELIVERY_QUERY);
    return ok(result.data.map(presentDelivery), { pagination: result.pagination });
  });

  app.get(
    '/deliveries/stream',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: Object.fromEntries(STREAM_FILTERS.map((f) => [f, { type: 'string', minLength: 1, maxLength: 200 }])),
        },
      },
    },
    async (request, reply) => {
      const filters = request.query as Partial<Record<(typeof STREAM_FILTERS)[number], string>>;
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
      raw.write(': plugsmith delivery stream\n\n');
      const unsubscribe = events.onAttempt((notice: AttemptNotice) => {
        if (STREAM_FILTERS.some((f) => filters[f] !== undefined && notice.delivery[f] !== filters[f])) return;
        raw.write(`id: ${notice.delivery.id}.${notice.attempt.number}\nevent: attempt\ndata: ${JSON.stringify(notice)}\n\n`);
      });
      const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
      keepAlive.unref();
      const cleanup = () => {
        clearInterval(keepAlive);
        unsubscribe();
      };
      request.raw.once('close', cleanup);
      raw.once('close', cleanup);
    },
  );

  app.get('/deliveries/:deliveryId', { schema: { params: params('deliveryId') } }, async (request) => {
    const { deliveryId } = request.params as { deliveryId: string };
    const record = db.deliveries.get(deliveryId);
    if (!record) throw notFound('delivery', deliveryId);
    return ok(presentDelivery(record));
  });

  app.post('/deliveries/:deliveryId/redeliver', { schema: { params: params('deliveryId') } }, async (request, reply) => {
    const { deliveryId } = request.params as { deliveryId: string };
    let delivery;
    try {
      delivery = await events.redeliver(deliveryId);
    } catch (error) {
      if (error instanceof RedeliveryRefused) throw conflict(error.message);
      throw error;
    }
    if (!delivery) throw notFound('delivery', deliveryId);
    reply.status(201);
    return ok(delivery);
  });
}
