import { z } from 'zod';
import { outputNote } from '../plugin-output.js';
import { deliveryDetail, result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

export const getDelivery = defineTool({
  name: 'get_delivery',
  title: 'Get a delivery',
  description:
    'One delivery in full: every attempt (when, the URL, the headers sent, the HTTP status and body the plugin answered, the error, the signature verdict, and the plugin\'s own stdout/stderr lines written while it handled that attempt or naming its event), the faults injected, and the event that was sent. The plugin\'s answers, its output (untrusted.pluginOutput) and the event payload are under "untrusted". follow_plugin_output reads all the plugin wrote.',
  inputSchema: {
    deliveryId: z.string().min(1).describe('the id, dlv_…, from list_deliveries'),
  },
  outputSchema: { delivery: anyObject },
  annotations: READ_ONLY,
  async run(args, connection) {
    const read = await connection.client.emulator.deliveries.get(args.deliveryId);
    const delivery = deliveryDetail(read, { output: true });
    const last = read.attempts.at(-1);
    const summary = `Delivery ${read.id} (${read.type}) is ${read.status} after ${read.attempts.length} attempt(s)${last ? `; last answer: ${last.responseStatus ?? last.error ?? 'none'}` : ''}.${outputNote(delivery)}`;
    return result(summary, { delivery }, connection.credentials);
  },
});
