import { z } from 'zod';
import { cancelRetries as cancel } from '../../dev/delivery-actions.js';
import { deliveryDetail, result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const cancelRetries = defineTool({
  name: 'cancel_retries',
  title: 'Cancel the retries of a delivery',
  description:
    'Ends the retries of a pending delivery: it becomes failed and is never sent again (resend_delivery can still send its event as a new delivery). Only a pending delivery can be cancelled.',
  inputSchema: { deliveryId: z.string().min(1) },
  outputSchema: { delivery: anyObject },
  annotations: { ...WRITES, destructiveHint: true, idempotentHint: true },
  async run(args, connection) {
    const delivery = await cancel(connection.client, args.deliveryId);
    const summary = `Cancelled the retries of ${delivery.id}: it is ${delivery.status} after ${delivery.attempts.length} attempt(s).`;
    return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
  },
});
