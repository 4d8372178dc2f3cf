import { z } from 'zod';
import type { DeliveryListQuery } from '../../client/index.js';
import { EVENT_KINDS } from '#contract/enum-values';
import { deliveryRow, result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'exhausted'] as const;

export const listDeliveries = defineTool({
  name: 'list_deliveries',
  title: 'List deliveries',
  description:
    "The emulator's webhook delivery log, newest first: each event sent to a plugin, its status (pending: retries to come; delivered: answered 2xx; failed/exhausted: did not get through) and its last answer. Filter by status, event kind, plugin, failed (at least one attempt failed), since (an ISO time) and scenario. get_delivery shows one in full.",
  inputSchema: {
    status: z.enum(DELIVERY_STATUSES).optional().describe('only deliveries in this status'),
    type: z.enum(EVENT_KINDS).optional().describe('only this event kind'),
    pluginId: z.string().optional().describe('only this plugin (default: every plugin)'),
    failed: z
      .boolean()
      .optional()
      .describe('only deliveries with at least one failed attempt, whatever their status now'),
    since: z
      .string()
      .datetime({ offset: true })
      .optional()
      .describe('only deliveries created at or after this ISO 8601 time'),
    scenario: z
      .string()
      .optional()
      .describe('only deliveries emitted while this scenario ran (run_scenarios)'),
    limit: z.number().int().min(1).max(100).default(20),
  },
  outputSchema: { deliveries: z.array(anyObject), total: z.number().nullable() },
  annotations: READ_ONLY,
  async run(args, connection) {
    const query: DeliveryListQuery = {
      pluginId: args.pluginId,
      failedOnce: args.failed,
      since: args.since,
      sortBy: 'createdAt',
      sortOrder: 'desc',
      limit: args.limit,
      filters: {
        ...(args.status ? { status: args.status } : {}),
        ...(args.type ? { type: args.type } : {}),
        ...(args.scenario ? { scenario: args.scenario } : {}),
      },
    };
    const page = await connection.client.emulator.deliveries.list(query);
    const deliveries = page.data.map(deliveryRow);
    const total = page.pagination?.type === 'index' ? page.pagination.total : null;
    const summary =
      deliveries.length === 0
        ? 'No delivery matches.'
        : `${deliveries.length} deliveries, newest first.`;
    return result(summary, { deliveries, total }, connection.credentials);
  },
});
