import { z } from 'zod';
import { retryNow } from '../../dev/delivery-actions.js';
import { deliveryDetail, result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const retryDelivery = defineTool({
  name: 'retry_delivery',
  title: 'Retry a pending delivery now',
  description:
    "Runs a pending delivery's next attempt now instead of waiting for its backoff, and returns the delivery as that attempt left it. Only a pending delivery can be retried (resend_delivery sends any other again).",
  inputSchema: {
    deliveryId: z.string().min(1),
    waitSeconds: z.number().min(1).max(60).default(15),
  },
  outputSchema: { delivery: anyObject },
  annotations: WRITES,
  async run(args, connection) {
    const delivery = await retryNow(connection.client, args.deliveryId, {
      wait: true,
      timeoutMs: args.waitSeconds * 1000,
    });
    const summary = `Delivery ${delivery.id} after attempt ${delivery.attempts.length}: ${delivery.status}.`;
    return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
  },
});
