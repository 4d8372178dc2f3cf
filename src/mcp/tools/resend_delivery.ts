import { z } from 'zod';
import { deliveryDetail, result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const resendDelivery = defineTool({
  name: 'resend_delivery',
  title: 'Resend a delivery',
  description:
    "Sends a logged delivery's event again, as a new delivery (same event id, so a plugin that de-duplicates by webhook-id must treat it as a repeat), and returns the new delivery after its first attempt. Use it after fixing the plugin. If the original is still pending, its retries end: the new delivery takes its place (the original is not sent again). Challenges are never resent.",
  inputSchema: { deliveryId: z.string().min(1) },
  outputSchema: { delivery: anyObject },
  // Destructive: a pending original's retries end.
  annotations: { ...WRITES, destructiveHint: true },
  async run(args, connection) {
    const delivery = await connection.client.emulator.deliveries.redeliver(args.deliveryId);
    const summary = `Resent ${args.deliveryId} as delivery ${delivery.id}: ${delivery.status}.`;
    return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
  },
});
