import {
  DeliveryAttemptNoticeSchema,
  DeliverySchema,
  DeliveryStreamQuerySchema,
  ListQuery,
  Ok,
  OkPage,
  errorResponses,
} from '../../src/contract/index.js';
import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { conflict, notFound } from '../errors.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import { RedeliveryRefused, type AttemptNotice } from '../events/dispatcher.js';
import { presentDelivery } from '../services/deliveries.js';
import { params, typed, type RouteOptions } from './common.js';
import { MAX_BUFFERED_BYTES } from '../messaging/event-streams.js';

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
  search: ['id', 'type', 'eventId', 'url', 'pluginId', 'pluginInstanceId'],
};

/** How often the stream sends a comment so proxies and clients keep it open. */
const KEEP_ALIVE_MS = 15_000;
const STREAM_FILTERS = ['pluginId', 'type', 'status', 'pluginInstanceId'] as const;

const errors = errorResponses(400, 401, 403, 404, 409);
/** The stream's 200: server-sent events, one `attempt` event (a DeliveryAttemptNotice) per logged attempt. */
const streamResponse = {
  200: {
    description: 'Server-sent events: one `attempt` event per logged attempt (id `<deliveryId>.<attempt number>`), data a DeliveryAttemptNotice; `: keep-alive` comments every 15 s',
    content: { 'text/event-stream': { schema: DeliveryAttemptNoticeSchema } },
  },
  ...errorResponses(400, 401, 403),
};

/**
 * The delivery log under /_emulator: list, one delivery, redeliver, and a server-sent-events
 * stream of attempts. The logged bodies hold installation access tokens: the admin surface's
 * guard (emulator/admin) decides who may call.
 */
export default async function deliveryRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  const { db, events } = services;

  app.get('/deliveries', { schema: { querystring: ListQuery(DELIVERY_QUERY), response: { 200: OkPage(DeliverySchema), ...errors } } }, async (request) => {
    const query = parseQuery(request.query, DELIVERY_QUERY);
    const result = runQuery(db.deliveries, query, DELIVERY_QUERY);
    return ok(result.data.map(presentDelivery), { pagination: result.pagination });
  });

  app.get('/deliveries/stream', { schema: { querystring: DeliveryStreamQuerySchema, response: streamResponse } }, async (request, reply) => {
    const filters = request.query;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    raw.write(': plugsmith delivery stream\n\n');
    // Like the conversation streams: a client more than MAX_BUFFERED_BYTES behind is dropped
    // (it reconnects and reads the log) instead of growing the emulator's memory without end.
    const send = (frame: string) => {
      if (raw.destroyed || raw.writableEnded) return;
      if (raw.writableLength > MAX_BUFFERED_BYTES) {
        raw.destroy();
        return;
      }
      raw.write(frame);
    };
    const unsubscribe = events.onAttempt((notice: AttemptNotice) => {
      if (STREAM_FILTERS.some((f) => filters[f] !== undefined && notice.delivery[f] !== filters[f])) return;
      send(`id: ${notice.delivery.id}.${notice.attempt.number}\nevent: attempt\ndata: ${JSON.stringify(notice)}\n\n`);
    });
    const keepAlive = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    const cleanup = () => {
      clearInterval(keepAlive);
      unsubscribe();
    };
    request.raw.once('close', cleanup);
    raw.once('close', cleanup);
  });

  app.get('/deliveries/:deliveryId', { schema: { params: params('deliveryId'), response: { 200: Ok(DeliverySchema), ...errors } } }, async (request) => {
    const { deliveryId } = request.params;
    const record = db.deliveries.get(deliveryId);
    if (!record) throw notFound('delivery', deliveryId);
    return ok(presentDelivery(record));
  });

  app.post('/deliveries/:deliveryId/redeliver', { schema: { params: params('deliveryId'), response: { 201: Ok(DeliverySchema), ...errors } } }, async (request, reply) => {
    const { deliveryId } = request.params;
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
