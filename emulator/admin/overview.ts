import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { typed, type RouteOptions } from '../api/common.js';
import {
  HealthSchema,
  Ok,
  OverviewSchema,
  STORE_COLLECTIONS,
  StoreEpochNoticeSchema,
  errorResponses,
  type Overview,
} from '#contract';
import { openAdminStream } from './sse.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';
import { NO_CREDENTIAL } from '../open-route.js';

/** The store a client's records came from: another epoch means a reset, an import or a restart happened. */
function storeEpoch(services: AdminDeps): string {
  return `${services.config.startedAt.getTime().toString(36)}.${services.store.replacements.generation}`;
}

/** The emulator at a glance: URLs, store, uptime, record counts, the delivery queue, storage and LLM backends. */
function overviewOf(services: AdminDeps): Overview {
  const { db, config } = services;
  const counts = Object.fromEntries(
    STORE_COLLECTIONS.map((name) => [name, db[name].size]),
  ) as Overview['counts'];
  const waiting = db.deliveries.where('status', 'pending');
  const pending = waiting.filter((delivery) => delivery.attempts.length === 0).length;
  const retrying = waiting.length - pending;
  const countOf = (status: string) => db.deliveries.where('status', status).length;
  return {
    managementUrl: config.publicUrl(),
    messagingUrl: config.messagingUrl(),
    storeId: config.storeId,
    persistent: services.store.persistent,
    dataDir: config.dataDir,
    startedAt: config.startedAt.toISOString(),
    uptimeSeconds: Math.max(0, Math.floor((Date.now() - config.startedAt.getTime()) / 1000)),
    counts,
    deliveryQueue: {
      pending,
      retrying,
      failed: countOf('failed') + countOf('exhausted'),
      delivered: countOf('delivered'),
    },
    deliveryPolicy: {
      attempts: services.dispatcher.options.schedule.length + 1,
      timeoutMs: services.dispatcher.options.timeoutMs,
    },
    storage: config.storageBackend,
    llm: config.llm,
  };
}

/** The emulator itself: `GET /_emulator/health` (open, answered once the emulator serves), the dashboard's Overview and its stream. */
export default async function adminOverviewRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['admin'],
        summary: "The emulator's health",
        description:
          'Anyone, without a credential: whether the emulator is up, with its URLs, store id and process id. For readiness checks; holds no records.',
        security: NO_CREDENTIAL,
        response: { 200: Ok(HealthSchema), ...errorResponses(401, 403) },
      },
    },
    async () => {
      const { managementUrl, messagingUrl, persistent, storeId } = overviewOf(services);
      return ok({
        status: 'ok' as const,
        managementUrl,
        messagingUrl,
        persistent,
        storeId,
        pid: process.pid,
      });
    },
  );

  app.get(
    '/overview',
    {
      schema: {
        operationId: 'getOverview',
        tags: ['admin'],
        summary: 'Counts and state for the dashboard',
        description: `${ADMIN_ONLY} the emulator's URLs, store, uptime, record counts, delivery queue, storage and LLM settings, for the dashboard's first page; never a secret.`,
        response: { 200: Ok(OverviewSchema), ...errorResponses(401, 403) },
      },
    },
    async () => ok(overviewOf(services)),
  );

  // The dashboard listens so that no view shows records of a store that is gone.
  const streamResponse = {
    200: {
      description:
        'Server-sent events: `hello` when the stream opens and `store-replaced` after each reset or import, data a StoreEpochNotice; `: keep-alive` comments every 15 s',
      content: { 'text/event-stream': { schema: StoreEpochNoticeSchema } },
    },
    ...errorResponses(401, 403),
  };
  app.get(
    '/stream',
    {
      schema: {
        operationId: 'streamStoreChanges',
        tags: ['admin'],
        summary: 'Stream store replacements (reset, import) as server-sent events',
        description: `${ADMIN_ONLY} streams \`hello\` when it opens and \`store-replaced\` after each reset or import, so a client knows its lists are stale.`,
        response: streamResponse,
      },
    },
    async (request, reply) =>
      openAdminStream(
        request,
        reply,
        `event: hello\ndata: ${JSON.stringify({ epoch: storeEpoch(services) })}\n\n`,
        (send) =>
          services.store.replacements.subscribe((replaced) => {
            send(
              `event: store-replaced\ndata: ${JSON.stringify({ epoch: storeEpoch(services), reason: replaced.reason })}\n\n`,
            );
          }),
      ),
  );
}
