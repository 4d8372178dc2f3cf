import { z } from 'zod';
import type { Delivery } from '../../client/index.js';
import { UserError } from '../../errors.js';
import { deliveryRow, result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

/** The log is read in pages of this many, newest first, down to the cursor. */
const PAGE = 100;

/** Where a delivery stands in the log's order of change: its updatedAt, then its id (ties in one millisecond). */
type Position = { updatedAt: string; id: string };

function after(delivery: Delivery, cursor: Position): boolean {
  if (delivery.updatedAt !== cursor.updatedAt) return delivery.updatedAt > cursor.updatedAt;
  return delivery.id > cursor.id;
}

function cursorOf(delivery: Delivery): string {
  return `${delivery.updatedAt}~${delivery.id}`;
}

/** A cursor is `<ISO time>~<delivery id>` (from nextCursor), or an ISO time alone. */
function positionOf(cursor: string): Position {
  const [time, id = ''] = cursor.split('~');
  const parsed = Date.parse(time);
  if (Number.isNaN(parsed))
    throw new UserError(
      `cursor ${JSON.stringify(cursor)} is not a nextCursor of follow_deliveries or an ISO time: pass the nextCursor of the previous call, or call without cursor to start`,
    );
  return { updatedAt: new Date(parsed).toISOString(), id };
}

export const followDeliveries = defineTool({
  name: 'follow_deliveries',
  title: 'Follow deliveries',
  description:
    "What changed in the delivery log since a cursor: every delivery created or attempted after it, oldest first, at most limit per call, and the cursor to pass next time; call again with nextCursor until hasMore is false, and none is skipped however many changed. Call without a cursor to start (you get the latest few). What the plugin answered each delivery is in each delivery's last answer (get_delivery has the bodies and the plugin's own output beside each attempt); follow_plugin_output follows the plugin process's stdout/stderr.",
  inputSchema: {
    cursor: z
      .string()
      .min(1)
      .optional()
      .describe('nextCursor of the previous call (or an ISO time to start from)'),
    pluginId: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  },
  outputSchema: { deliveries: z.array(anyObject), nextCursor: z.string(), hasMore: z.boolean() },
  annotations: READ_ONLY,
  async run(args, connection) {
    const list = (page: number, limit: number) =>
      connection.client.emulator.deliveries.list({
        pluginId: args.pluginId,
        sortBy: ['updatedAt', 'id'],
        sortOrder: ['desc', 'desc'],
        page,
        limit,
      });
    let changed: Delivery[];
    let hasMore = false;
    if (!args.cursor) {
      changed = (await list(1, args.limit)).data.reverse();
    } else {
      // Newest first, page by page, down to the cursor: then the oldest `limit` of what lies after it.
      const cursor = positionOf(args.cursor);
      const seen = new Map<string, Delivery>();
      for (let page = 1; ; page += 1) {
        const { data } = await list(page, PAGE);
        for (const delivery of data) if (after(delivery, cursor)) seen.set(delivery.id, delivery);
        if (data.length < PAGE || data.some((delivery) => !after(delivery, cursor))) break;
      }
      const ordered = [...seen.values()].sort((a, b) =>
        a.updatedAt === b.updatedAt ? (a.id < b.id ? -1 : 1) : a.updatedAt < b.updatedAt ? -1 : 1,
      );
      changed = ordered.slice(0, args.limit);
      hasMore = ordered.length > changed.length;
    }
    const newest = changed.at(-1);
    const nextCursor = newest ? cursorOf(newest) : (args.cursor ?? `${new Date(0).toISOString()}~`);
    const summary =
      changed.length === 0
        ? 'Nothing new since the cursor.'
        : `${changed.length} delivery(ies) changed, oldest first${hasMore ? '; more changed after them: call again with nextCursor' : ''}.`;
    return result(
      summary,
      { deliveries: changed.map(deliveryRow), nextCursor, hasMore },
      connection.credentials,
    );
  },
});
