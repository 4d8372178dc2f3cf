import {
  BulkRedeliveryResultSchema,
  DELIVERY_FILTER_PARAMETERS,
  HandlerQuery,
  ListQuery,
  DeliveryBulkQuerySchema,
  MAX_BULK_REDELIVERIES,
  RedeliverQuerySchema,
  type DeliveryFilterParameters,
  DeliveryAttemptNoticeSchema,
  DeliverySchema,
  DeliveryStreamQuerySchema,
  Ok,
  OkPage,
  errorResponses,
} from '#contract';
import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { badRequest, conflict, detail, found } from '../errors.js';
import { fromAjv, lazyValidator } from '../validation/json-schema.js';
import { Type } from '@sinclair/typebox';
import type { DeliveryRecord } from '../model.js';
import { parseQuery, runList } from '../api/list-query.js';
import { RedeliveryRefused } from '../webhooks/dispatcher.js';
import { presentDelivery, type DeliveryView } from '../webhooks/delivery-service.js';
import { answered2xx } from '../webhooks/attempt.js';
import { params, querySpec, typed, type RouteOptions } from '../api/common.js';
import { openAdminStream } from './sse.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

const DELIVERY_QUERY = querySpec(
  DeliverySchema,
  [
    'id',
    'eventId',
    'type',
    'status',
    'pluginId',
    'pluginInstanceId',
    'orgId',
    'url',
    'mode',
    'redeliveryOf',
    'scenario',
    'nextAttemptAt',
    'createdAt',
    'updatedAt',
  ],
  ['id', 'type', 'eventId', 'url', 'pluginId', 'pluginInstanceId'],
);

const FILTER_NAMES = Object.keys(DELIVERY_FILTER_PARAMETERS);

/**
 * GET /_emulator/deliveries' query as the handler reads it: the query system of DELIVERY_QUERY (`@page` and `@limit`
 * integers, a filter per field, `status` and `type` among their values) and the delivery log's own filters.
 */
const DELIVERY_LIST_QUERY = HandlerQuery(
  { ...ListQuery(DELIVERY_QUERY).properties, ...DELIVERY_FILTER_PARAMETERS },
  {
    description:
      "The query system (paging, sorting, search, a filter per field) and the delivery log's own filters",
  },
);

/** The delivery log's own filters, checked in the handler (fastify leaves a handler-checked query alone): each given once, as its pattern says. */
const deliveryFilterValidator = lazyValidator<DeliveryFilterParameters>(
  Type.Object(DELIVERY_FILTER_PARAMETERS),
  { allErrors: true, verbose: true },
);

/** The delivery log's filters of a raw query, or the 400 naming each bad one. */
function deliveryFilterParameters(raw: Record<string, unknown>): DeliveryFilterParameters {
  const validate = deliveryFilterValidator();
  if (validate(raw)) return raw;
  throw badRequest(
    'Invalid query parameters',
    (validate.errors ?? []).map((e) => fromAjv(e, [])),
  );
}

/** The test of the delivery log's own filters (`@failedOnce`, `@httpStatus`, attempts, time range, part of a scenario's name); none when none is set. */
function deliveryFilter(
  raw: DeliveryFilterParameters,
): ((d: DeliveryRecord) => boolean) | undefined {
  const checks: Array<(d: DeliveryRecord) => boolean> = [];
  if (raw['@failedOnce'] === 'true')
    checks.push((d) => d.attempts.some((a) => !answered2xx(a.responseStatus, a.error)));
  if (raw['@faulted'] === 'true') checks.push((d) => (d.faults?.length ?? 0) > 0);
  if (raw['@httpStatus']) {
    const wanted = raw['@httpStatus'].split(',');
    checks.push((d) => {
      const last = d.attempts.at(-1);
      if (!last) return false;
      if (last.responseStatus === null) return wanted.includes('none');
      const code = String(last.responseStatus);
      return wanted.includes(code) || wanted.includes(`${code[0]}xx`);
    });
  }
  for (const [key, atLeast] of [
    ['@minAttempts', true],
    ['@maxAttempts', false],
  ] as const) {
    if (raw[key] === undefined) continue;
    const bound = Number(raw[key]);
    checks.push((d) => (atLeast ? d.attempts.length >= bound : d.attempts.length <= bound));
  }
  for (const [key, after] of [
    ['@since', true],
    ['@until', false],
  ] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    const at = Date.parse(value);
    if (Number.isNaN(at))
      throw badRequest('Invalid query parameters', [
        detail([key], 'invalid_string', 'an ISO 8601 time', value, `${key} is not a time`),
      ]);
    checks.push((d) => (after ? Date.parse(d.createdAt) >= at : Date.parse(d.createdAt) < at));
  }
  const scenarioPart = raw['@scenarioContains']?.toLowerCase();
  if (scenarioPart) checks.push((d) => d.scenario?.toLowerCase().includes(scenarioPart) ?? false);
  if (checks.length === 0) return undefined;
  return (d) => checks.every((check) => check(d));
}

const STREAM_FILTERS = ['pluginId', 'type', 'status', 'pluginInstanceId'] as const;

const errors = errorResponses(400, 401, 403, 404, 409);
/** A state change: the admin guard also refuses the bodies a page of another origin could send (415). */
const changeErrors = errorResponses(400, 401, 403, 404, 409, 415);
const streamResponse = {
  200: {
    description:
      'Server-sent events: one `attempt` event per logged attempt (id `<deliveryId>.<attempt number>`), data a DeliveryAttemptNotice; `: keep-alive` comments every 15 s',
    content: { 'text/event-stream': { schema: DeliveryAttemptNoticeSchema } },
  },
  ...errorResponses(400, 401, 403),
};

/** A dispatcher action on one delivery: a refusal is a 409, no such delivery a 404. */
async function actOn(
  deliveryId: string,
  action: () => Promise<DeliveryView | null> | DeliveryView | null,
): Promise<DeliveryView> {
  try {
    return found(await action(), 'delivery', deliveryId);
  } catch (error) {
    throw error instanceof RedeliveryRefused ? conflict(error.message) : error;
  }
}

/** The delivery log under /_emulator (its bodies hold installation tokens): list, read, resend, retry, cancel, and a stream of attempts. */
export default async function deliveryRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db, dispatcher, pluginOutput } = services;

  app.get(
    '/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        tags: ['admin-deliveries'],
        summary: 'List webhook deliveries',
        description: `${ADMIN_ONLY} lists the webhook deliveries (one per event and instance, with their attempts), newest first, with the query system and the delivery log's own filters (failed once, last answer, attempts, time, part of a scenario's name).`,
        querystring: DELIVERY_LIST_QUERY,
        response: { 200: OkPage(DeliverySchema), ...errors },
      },
    },
    async (request) => {
      const filters = deliveryFilterParameters(request.query);
      const query = parseQuery(request.query, DELIVERY_QUERY, FILTER_NAMES);
      const result = runList(db.deliveries, query, DELIVERY_QUERY, {
        visible: deliveryFilter(filters),
      });
      return ok(result.data.map(presentDelivery), { pagination: result.pagination });
    },
  );

  // Every delivery the list's filters match is sent again (as its own new delivery; challenges never).
  app.post(
    '/deliveries/redeliver',
    {
      schema: {
        operationId: 'redeliverMatching',
        tags: ['admin-deliveries'],
        summary: 'Deliver again every delivery the filters match',
        description: `${ADMIN_ONLY} sends again, each as a new delivery, every delivery the list's filters match (challenges skipped; over 1,000 matches is a 400), answering at once.`,
        querystring: DeliveryBulkQuerySchema,
        response: { 200: Ok(BulkRedeliveryResultSchema), ...changeErrors },
      },
    },
    async (request) => {
      const raw = request.query;
      const query = parseQuery({ ...raw, '@limit': '1' }, DELIVERY_QUERY, FILTER_NAMES);
      const matched = runList(
        db.deliveries,
        { ...query, limit: Number.MAX_SAFE_INTEGER, page: 1, cursor: undefined },
        DELIVERY_QUERY,
        { visible: deliveryFilter(raw) },
      ).data;
      const resendable = matched.filter((d) => d.type !== 'WEBHOOK_CHALLENGE');
      if (resendable.length > MAX_BULK_REDELIVERIES) {
        throw badRequest(
          `${resendable.length} deliveries match: at most ${MAX_BULK_REDELIVERIES} are resent at once`,
          [
            detail(
              ['query'],
              'too_big',
              `at most ${MAX_BULK_REDELIVERIES} matches`,
              resendable.length,
              'narrow the filters',
            ),
          ],
        );
      }
      const ids: string[] = [];
      // Oldest first, so the plugin meets them in the order they first went out.
      for (const d of [...resendable].reverse()) {
        try {
          const resent = await dispatcher.redeliver(d.id, { wait: false });
          if (resent) ids.push(resent.id);
        } catch (error) {
          if (!(error instanceof RedeliveryRefused)) throw error;
        }
      }
      return ok({ count: ids.length, skipped: matched.length - ids.length, deliveries: ids });
    },
  );

  app.get(
    '/deliveries/stream',
    {
      schema: {
        operationId: 'streamDeliveryAttempts',
        tags: ['admin-deliveries'],
        summary: 'Stream delivery attempts as server-sent events',
        description: `${ADMIN_ONLY} streams one \`attempt\` event per delivery attempt as it is logged (each with an \`id:\`), filtered like the list.`,
        querystring: DeliveryStreamQuerySchema,
        response: streamResponse,
      },
    },
    async (request, reply) => {
      const filters = request.query;
      openAdminStream(request, reply, ': plugsmith delivery stream\n\n', (send) =>
        dispatcher.onAttempt((notice) => {
          if (
            STREAM_FILTERS.some(
              (f) => filters[f] !== undefined && notice.delivery[f] !== filters[f],
            )
          )
            return;
          send(
            `id: ${notice.delivery.id}.${notice.attempt.number}\nevent: attempt\ndata: ${JSON.stringify(notice)}\n\n`,
          );
        }),
      );
    },
  );

  app.get(
    '/deliveries/:deliveryId',
    {
      schema: {
        operationId: 'getDelivery',
        tags: ['admin-deliveries'],
        summary: 'Get a delivery with its attempts',
        description: `${ADMIN_ONLY} reads one delivery: the event sent, the URL, every attempt with its answer and the plugin's own output linked to it (\`pluginOutput\`, untrusted text), and its status.`,
        params: params('deliveryId'),
        response: { 200: Ok(DeliverySchema), ...errors },
      },
    },
    async (request) => {
      const { deliveryId } = request.params;
      const delivery = found(db.deliveries.get(deliveryId), 'delivery', deliveryId);
      return ok(pluginOutput.withOutput(presentDelivery(delivery)));
    },
  );

  app.post(
    '/deliveries/:deliveryId/redeliver',
    {
      schema: {
        operationId: 'redeliver',
        tags: ['admin-deliveries'],
        summary: 'Deliver an event again',
        description: `${ADMIN_ONLY} sends the delivery's event again as a new delivery (same event id, to the plugin's current URL); a pending one's retries are cancelled first. Answers after the first attempt, or at once with \`wait=false\`.`,
        params: params('deliveryId'),
        querystring: RedeliverQuerySchema,
        response: { 201: Ok(DeliverySchema), ...errors },
      },
    },
    async (request, reply) => {
      const { deliveryId } = request.params;
      const delivery = await actOn(deliveryId, () =>
        dispatcher.redeliver(deliveryId, { wait: request.query.wait !== 'false' }),
      );
      return reply.status(201).send(ok(delivery));
    },
  );

  // A pending delivery's next attempt, now; answered at once (the outcome comes over the stream).
  app.post(
    '/deliveries/:deliveryId/retry',
    {
      schema: {
        operationId: 'retryDeliveryNow',
        tags: ['admin-deliveries'],
        summary: "Make a pending delivery's next attempt now",
        description: `${ADMIN_ONLY} makes a pending delivery's next attempt now instead of after its backoff; a delivery that is not pending is a 409.`,
        params: params('deliveryId'),
        response: { 200: Ok(DeliverySchema), ...changeErrors },
      },
    },
    async (request) => {
      const { deliveryId } = request.params;
      return ok(await actOn(deliveryId, () => dispatcher.retryNow(deliveryId)));
    },
  );

  // A pending delivery's retries, cancelled: it becomes failed (cancelledAt set) and is never sent again.
  app.post(
    '/deliveries/:deliveryId/cancel',
    {
      schema: {
        operationId: 'cancelDeliveryRetries',
        tags: ['admin-deliveries'],
        summary: "Cancel a pending delivery's retries",
        description: `${ADMIN_ONLY} cancels a pending delivery's remaining retries: it becomes failed, with \`cancelledAt\`; a delivery that is not pending is a 409.`,
        params: params('deliveryId'),
        response: { 200: Ok(DeliverySchema), ...changeErrors },
      },
    },
    async (request) => {
      const { deliveryId } = request.params;
      return ok(await actOn(deliveryId, () => dispatcher.cancel(deliveryId)));
    },
  );
}
