import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Message } from '../client/index.js';
import { ApiError } from '../client/errors.js';
import { UserError } from '../errors.js';
import { EVENT_KINDS } from '../shared/contract/enum-values.js';
import { cancelRetries, retryNow } from '../dev/delivery-actions.js';
import { type Connect, pluginIdOf, withConnection } from './connection.js';
import { deliveryDetail, messageOf, result } from './shape.js';

const anyObject = z.record(z.unknown());

/** Changes the emulator's state, can be undone or repeated safely enough not to ask. */
const WRITES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** Registers the tools that change the emulator (left out with `--read-only`). */
export function registerWriteTools(server: McpServer, connect: Connect): void {
  server.registerTool(
    'trigger_event',
    {
      title: 'Trigger an event',
      description:
        "Makes the emulator send an event to the project's plugin for real (AGENT_MESSAGE_RECEIVED posts a real user message to an agent where the plugin is installed), waits for the delivery's first attempt, and returns the delivery with the plugin's answer (and, for messages, the character reply the plugin wrote). Give data to send that payload instead of a sample; it is checked against the event's schema first.",
      inputSchema: {
        type: z.enum(EVENT_KINDS).describe('the event to send'),
        pluginId: z.string().optional().describe("default: this project's plugin"),
        instanceId: z.string().optional().describe("default: the plugin's newest fitting instance"),
        data: anyObject.optional().describe("the event's data, validated against its schema"),
        waitSeconds: z
          .number()
          .min(1)
          .max(60)
          .default(15)
          .describe('how long to wait for the answer'),
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
      annotations: WRITES,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const pluginId = await pluginIdOf(connection, args.pluginId);
        const { triggerEvent } = await import('../trigger/trigger.js');
        const triggered = await triggerEvent(connection.client, {
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
        const delivery = triggered.delivery ? deliveryDetail(triggered.delivery) : null;
        const reply = triggered.reply ? messageOf(triggered.reply as Message) : triggered.reply;
        const answered = delivery
          ? `delivery ${delivery.id} is ${delivery.status} (HTTP ${delivery.lastResponseStatus ?? 'none'})`
          : 'no delivery reached the log in time: is the plugin subscribed to the event and its webhook up?';
        const summary = `${args.type} sent to plugin ${pluginId} through ${triggered.via}: ${answered}${reply ? '; the plugin replied in the conversation' : ''}.`;
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
      }),
  );

  server.registerTool(
    'resend_delivery',
    {
      title: 'Resend a delivery',
      description:
        "Sends a logged delivery's event again, as a new delivery (same event id, so a plugin that de-duplicates by webhook-id must treat it as a repeat), and returns the new delivery after its first attempt. Use it after fixing the plugin. Challenges are never resent.",
      inputSchema: { deliveryId: z.string().min(1) },
      outputSchema: { delivery: anyObject },
      annotations: WRITES,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const delivery = await connection.client.emulator.deliveries.redeliver(args.deliveryId);
        const summary = `Resent ${args.deliveryId} as delivery ${delivery.id}: ${delivery.status}.`;
        return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
      }),
  );

  server.registerTool(
    'retry_delivery',
    {
      title: 'Retry a pending delivery now',
      description:
        "Runs a pending delivery's next attempt now instead of waiting for its backoff, and returns the delivery as that attempt left it. Only a pending delivery can be retried (resend_delivery sends any other again).",
      inputSchema: {
        deliveryId: z.string().min(1),
        waitSeconds: z.number().min(1).max(60).default(15),
      },
      outputSchema: { delivery: anyObject },
      annotations: WRITES,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const delivery = await retryNow(connection.client, args.deliveryId, {
          wait: true,
          timeoutMs: args.waitSeconds * 1000,
        });
        const summary = `Delivery ${delivery.id} after attempt ${delivery.attempts.length}: ${delivery.status}.`;
        return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
      }),
  );

  server.registerTool(
    'cancel_retries',
    {
      title: 'Cancel the retries of a delivery',
      description:
        'Ends the retries of a pending delivery: it becomes failed and is never sent again (resend_delivery can still send its event as a new delivery). Only a pending delivery can be cancelled.',
      inputSchema: { deliveryId: z.string().min(1) },
      outputSchema: { delivery: anyObject },
      annotations: { ...WRITES, destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const delivery = await cancelRetries(connection.client, args.deliveryId);
        const summary = `Cancelled the retries of ${delivery.id}: it is ${delivery.status} after ${delivery.attempts.length} attempt(s).`;
        return result(summary, { delivery: deliveryDetail(delivery) }, connection.credentials);
      }),
  );

  server.registerTool(
    'run_check',
    {
      title: 'Check the plugin',
      description:
        "Runs `plugsmith check` against the plugin's webhook: signed requests that test signature verification (valid, missing, wrong, rotated), replays, duplicates, unknown events and answer time, and, on the emulator, what the plugin did. Returns each check with its status and the fix for each failure. It sends real requests to the plugin, which may act on them.",
      inputSchema: {
        pluginId: z.string().optional().describe("default: this project's plugin"),
        deliveryTimeoutSeconds: z.number().min(1).max(600).default(10),
      },
      outputSchema: {
        ok: z.boolean(),
        url: z.string(),
        summary: anyObject,
        latency: anyObject,
        checks: z.array(anyObject),
      },
      annotations: WRITES,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const pluginId = await pluginIdOf(connection, args.pluginId);
        const plugin = await connection.client.plugins.get(pluginId);
        const secret = typeof plugin.webhookSecret === 'string' ? plugin.webhookSecret : undefined;
        if (!plugin.webhookUrl || !secret)
          throw new UserError(
            `plugin ${pluginId} has no webhook URL or its secret is not shown: set webhookUrl in plugsmith.json and let \`plugsmith dev\` deploy it`,
          );
        const { runCheck } = await import('../check/index.js');
        const report = await runCheck({
          url: plugin.webhookUrl,
          secret,
          plugin,
          client: connection.client,
          timeoutMs: args.deliveryTimeoutSeconds * 1000,
        });
        const checks = report.checks.map((check) => ({
          id: check.id,
          title: check.title,
          required: check.required,
          status: check.status,
          fix: check.fix,
          untrusted: { sent: check.sent, received: check.received },
        }));
        const failed = report.checks.filter((check) => check.status === 'failed');
        const summary = report.ok
          ? `All required checks passed (${report.summary.passed} passed, ${report.summary.skipped} skipped).`
          : `${failed.length} check(s) failed: ${failed.map((check) => check.id).join(', ')}; each one's fix is in "fix".`;
        return result(
          summary,
          {
            ok: report.ok,
            url: report.url,
            summary: report.summary,
            latency: report.latency as unknown as Record<string, unknown>,
            checks,
          },
          [...connection.credentials, secret],
        );
      }),
  );

  server.registerTool(
    'send_chat_message',
    {
      title: 'Send a chat message',
      description:
        "Sends a user message to a character (a new conversation, or conversationId's) through the messaging API, as a person chatting would, and returns the character's complete reply. When an EVENT_HANDLER plugin is installed on the character's agent, the plugin receives AGENT_MESSAGE_RECEIVED and may write the reply. list_characters gives the ids.",
      inputSchema: {
        characterId: z.string().optional().describe('the character to talk to (or conversationId)'),
        conversationId: z.string().optional().describe('continue this conversation'),
        message: z.string().min(1).describe('the text to send'),
        waitSeconds: z.number().min(1).max(120).default(30),
      },
      outputSchema: { conversationId: z.string(), sent: anyObject, reply: anyObject.nullable() },
      annotations: WRITES,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        if (!args.characterId && !args.conversationId)
          throw new UserError(
            'give characterId (list_characters lists them) or conversationId to continue a conversation',
          );
        const { ChatSession } = await import('../ui/chat/chat-session.js');
        const session = new ChatSession(connection.client, args.characterId, {
          conversationId: args.conversationId,
        });
        let timer: NodeJS.Timeout | undefined;
        try {
          const conversation = await session.start();
          const late = new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), args.waitSeconds * 1000);
          });
          const reply = await Promise.race([session.send(args.message), late]);
          const sent = session.messages.find(
            (m) => m.sender === 'USER' && m.content === args.message,
          );
          const summary = reply
            ? `The character replied in conversation ${conversation.id}.`
            : `No complete reply in ${args.waitSeconds}s in conversation ${conversation.id}: is the plugin running (\`plugsmith dev\`)? get its delivery with list_deliveries.`;
          return result(
            summary,
            {
              conversationId: conversation.id,
              sent: sent ? messageOf(sent) : { untrusted: { content: args.message } },
              reply: reply ? messageOf(reply) : null,
            },
            connection.credentials,
          );
        } finally {
          clearTimeout(timer);
          session.close();
        }
      }),
  );

  server.registerTool(
    'set_fault_profile',
    {
      title: 'Set the fault profile',
      description:
        'Makes the emulator misbehave on purpose so the plugin can prove it copes: a comma-separated profile of duplicate=P, delay=MIN-MAX, reorder=P, drop=P, timeout-after-answer=P (P a probability like 0.2 or 20%), or "off". A seed makes the faults repeatable. Returns the profile in force.',
      inputSchema: {
        profile: z.string().describe('e.g. "duplicate=0.2,drop=0.1", or "off"'),
        seed: z.string().optional().describe('default: a new random seed'),
      },
      outputSchema: { faults: anyObject },
      annotations: { ...WRITES, idempotentHint: true },
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const faults = await connection.client.emulator.faults.set(args.profile, args.seed);
        const summary = faults.on
          ? `Fault injection on: ${faults.profile} (seed ${faults.seed}).`
          : 'Fault injection off.';
        return result(
          summary,
          { faults: faults as Record<string, unknown> },
          connection.credentials,
        );
      }),
  );

  server.registerTool(
    'rotate_webhook_secret',
    {
      title: 'Rotate the webhook secret',
      description:
        "Gives the plugin a new webhook secret; the previous one keeps signing beside it for graceSeconds (default 24 h), so deliveries carry two signatures meanwhile. `plugsmith dev` restarts the plugin with the new secret. The secret itself is never returned (it is in the emulator, for the plugin's own environment).",
      inputSchema: {
        pluginId: z.string().optional().describe("default: this project's plugin"),
        graceSeconds: z.number().int().min(0).max(604_800).optional(),
      },
      outputSchema: { pluginId: z.string(), previousSecretExpiresAt: z.string().nullable() },
      annotations: WRITES,
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const pluginId = await pluginIdOf(connection, args.pluginId);
        const rotation = await connection.client.plugins.rotateWebhookSecret(
          pluginId,
          args.graceSeconds === undefined ? undefined : { graceSeconds: args.graceSeconds },
        );
        const expires = rotation.previousSecretExpiresAt ?? null;
        const summary = `Rotated the webhook secret of ${pluginId}; the previous one signs ${expires ? `until ${expires}` : 'no longer'}.`;
        return result(summary, { pluginId, previousSecretExpiresAt: expires }, [
          ...connection.credentials,
          rotation.webhookSecret,
        ]);
      }),
  );

  server.registerTool(
    'reset_emulator',
    {
      title: 'Reset the emulator',
      description:
        'DESTRUCTIVE: puts the emulator back to its seed. It removes every plugin, instance, delivery (the whole log), conversation, message, file, repository and token created since it started; the seed (its org, agents, characters, token and API key) is loaded again, and the fault profile stays (its faults are drawn from the start again). The plugin of this project is gone too: restart `plugsmith dev` to deploy and install it again. Needs confirm: true.',
      inputSchema: {
        confirm: z
          .literal(true)
          .describe(
            'must be true: you accept that everything listed in the description is removed',
          ),
      },
      outputSchema: { reset: z.boolean(), removed: z.string() },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    () =>
      withConnection(connect, async (connection) => {
        await connection.client.emulator.reset();
        const removed =
          'every plugin, instance, delivery, conversation, message, file, repository and token created since the seed';
        return result(
          `The emulator is back to its seed: removed ${removed}.`,
          { reset: true, removed },
          connection.credentials,
        );
      }),
  );
}
