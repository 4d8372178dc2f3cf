import { z } from 'zod';
import type { Message } from '../../client/index.js';
import { ApiError } from '../../client/errors.js';
import { accepted, noReplyExplanation } from '../../delivery-watch/index.js';
import { UserError } from '../../errors.js';
import { EVENT_KINDS } from '#contract/enum-values';
import { pluginIdOf } from '../connection.js';
import { outputNote } from '../plugin-output.js';
import { deliveryDetail, messageOf, result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const triggerEvent = defineTool({
  name: 'trigger_event',
  title: 'Trigger an event',
  description:
    "Makes the emulator send an event to the project's plugin for real (AGENT_MESSAGE_RECEIVED posts a real user message to an agent where the plugin is installed), waits for the delivery's first attempt, and returns the delivery with the plugin's answer (and, for messages, the character reply the plugin wrote). A failed attempt comes back at once with the plugin's own output beside it (untrusted); a message the plugin accepted without replying is explained after waitSeconds. Give data to send that payload instead of a sample; it is checked against the event's schema first. PLUGIN_UNINSTALLED really uninstalls the plugin's instance (its token stops working, its events stop): it needs confirm: true.",
  inputSchema: {
    type: z.enum(EVENT_KINDS).describe('the event to send'),
    pluginId: z.string().optional().describe("default: this project's plugin"),
    instanceId: z.string().optional().describe("default: the plugin's newest fitting instance"),
    data: anyObject.optional().describe("the event's data, validated against its schema"),
    waitSeconds: z.number().min(1).max(60).default(15).describe('how long to wait for the answer'),
    confirm: z
      .boolean()
      .optional()
      .describe('must be true for PLUGIN_UNINSTALLED, which really removes the instance'),
  },
  outputSchema: {
    type: z.string(),
    pluginId: z.string(),
    pluginInstanceId: z.string().nullable(),
    via: z.string(),
    delivery: anyObject.nullable(),
    verified: z.boolean().optional(),
    conversationId: z.string().optional(),
    reply: anyObject.nullable().optional(),
  },
  // Destructive: PLUGIN_UNINSTALLED removes the instance (and needs confirm: true).
  annotations: { ...WRITES, destructiveHint: true },
  async run(args, connection) {
    if (args.type === 'PLUGIN_UNINSTALLED' && args.confirm !== true)
      throw new UserError(
        'PLUGIN_UNINSTALLED really uninstalls the plugin from its instance (its token stops working and no more events reach it): call trigger_event again with confirm: true to do it, or trigger another event',
      );
    const pluginId = await pluginIdOf(connection, args.pluginId);
    const { triggerEvent: trigger } = await import('../../trigger/trigger.js');
    const triggered = await trigger(connection.client, {
      type: args.type,
      pluginId,
      instanceId: args.instanceId,
      data: args.data,
      timeoutMs: args.waitSeconds * 1000,
    }).catch((error: unknown) => {
      // The emulator checks the data against the event's schema: say where the schema is.
      if (args.data && error instanceof ApiError && error.status === 400)
        error.message += ` (data must fit ${args.type}'s schema, the resource plugsmith://events/${args.type}/schema; leave data out to send a real sample)`;
      throw error;
    });
    const last = triggered.delivery?.attempts.at(-1);
    const failed = last !== undefined && !accepted(last);
    // A failed attempt's delivery was read again with the plugin's output linked (or none, said so).
    const delivery = triggered.delivery
      ? deliveryDetail(triggered.delivery, { output: failed })
      : null;
    const reply = triggered.reply ? messageOf(triggered.reply as Message) : triggered.reply;
    const answered = delivery
      ? `delivery ${delivery.id} is ${delivery.status} (${delivery.lastResponseStatus !== null ? `HTTP ${delivery.lastResponseStatus}` : (delivery.lastError ?? 'no answer')})`
      : 'no delivery reached the log in time: is the plugin subscribed to the event and its webhook up?';
    let more = reply ? '; the plugin replied in the conversation.' : '.';
    if (delivery && failed)
      // The plugin failed the event: what it answered and wrote is in the delivery, returned at once.
      more = `: the plugin failed the event; its answer and its own output are in delivery.attemptList (untrusted), get_delivery reads it again, follow_plugin_output all the plugin wrote.${outputNote(delivery)}`;
    else if (triggered.delivery && triggered.conversationId && reply === null)
      more = `; ${noReplyExplanation(triggered.conversationId, args.waitSeconds, { available: true, deliveries: [triggered.delivery] })}.`;
    const summary = `${args.type} sent to plugin ${pluginId} through ${triggered.via}: ${answered}${more}`;
    return result(
      summary,
      {
        type: triggered.type,
        pluginId: triggered.pluginId,
        pluginInstanceId: triggered.pluginInstanceId,
        via: triggered.via,
        delivery,
        ...(triggered.verified !== undefined ? { verified: triggered.verified } : {}),
        ...(triggered.conversationId ? { conversationId: triggered.conversationId } : {}),
        ...(reply !== undefined ? { reply } : {}),
      },
      connection.credentials,
    );
  },
});
