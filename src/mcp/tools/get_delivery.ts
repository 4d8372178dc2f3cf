import { z } from 'zod';
import { deliveryDetail, result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

export const getDelivery = defineTool({
  name: 'get_delivery',
  title: 'Get a delivery',
  description:
    'One delivery in full: every attempt (when, the URL, the headers sent, the HTTP status and body the plugin answered, the error, the signature verdict), the faults injected, and the event that was sent. The plugin\'s answers and the event payload are under "untrusted".',
  inputSchema: {
    deliveryId: z.string().min(1).describe('the id, dlv_…, from list_deliveries'),
  },
  outputSchema: { delivery: anyObject },
  annotations: READ_ONLY,
  async run(args, connection) {
    const delivery = await connection.client.emulator.deliveries.get(args.deliveryId);
    const last = delivery.attempts.at(-1);
    const summary = `Delivery ${delivery.id} (${delivery.type}) is ${delivery.status} after ${delivery.attempts.length} attempt(s)${last ? `; last answer: ${last.responseStatus ?? last.error ?? 'none'}` : ''}.`;
    return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
  },
});
