import { z } from 'zod';
import { deliveryRow, result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

export const followDeliveries = defineTool({
  name: 'follow_deliveries',
  title: 'Follow deliveries',
  description:
    "What changed in the delivery log since a cursor: deliveries created or attempted after it, oldest first, and the cursor to pass next time. Call without a cursor to start (you get the latest few); call again with nextCursor to follow along without listing everything. The plugin process's own stdout/stderr is shown only in the terminal of `plugsmith dev`; what the plugin answered each delivery is in each delivery's last answer (get_delivery has the bodies).",
  inputSchema: {
    cursor: z
      .string()
      .datetime({ offset: true })
      .optional()
      .describe('nextCursor of the previous call (an ISO time)'),
    pluginId: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  },
  outputSchema: { deliveries: z.array(anyObject), nextCursor: z.string() },
  annotations: READ_ONLY,
  async run(args, connection) {
    const page = await connection.client.emulator.deliveries.list({
      pluginId: args.pluginId,
      sortBy: 'updatedAt',
      sortOrder: 'desc',
      limit: args.cursor ? 100 : args.limit,
    });
    const cursor = args.cursor ? Date.parse(args.cursor) : Number.NEGATIVE_INFINITY;
    const changed = page.data
      .filter((delivery) => Date.parse(delivery.updatedAt) > cursor)
      .slice(0, args.limit)
      .reverse();
    const newest = changed.at(-1)?.updatedAt;
    const nextCursor = newest ?? args.cursor ?? new Date(0).toISOString();
    const summary =
      changed.length === 0
        ? 'Nothing new since the cursor.'
        : `${changed.length} delivery(ies) changed, oldest first.`;
    return result(
      summary,
      { deliveries: changed.map(deliveryRow), nextCursor },
      connection.credentials,
    );
  },
});
