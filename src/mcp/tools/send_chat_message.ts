import { z } from 'zod';
import type { Message } from '../../client/index.js';
import {
  type DeliveryFailure,
  type DeliveryWatch,
  noReplyExplanation,
  watchMessageDelivery,
} from '../../delivery-watch/index.js';
import { UserError } from '../../errors.js';
import { inToolTerms } from '../advice.js';
import { outputNote } from '../plugin-output.js';
import { deliveryDetail, messageOf, result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

type Outcome =
  | { kind: 'reply'; reply: Message }
  | { kind: 'failed'; failure: DeliveryFailure }
  | { kind: 'timeout' };

/** The answer of an attempt in words: its HTTP status, else its error. */
function answerOf(failure: DeliveryFailure): string {
  const { attempt } = failure;
  return attempt.responseStatus !== null
    ? `HTTP ${attempt.responseStatus}`
    : (attempt.error ?? 'no answer');
}

export const sendChatMessage = defineTool({
  name: 'send_chat_message',
  title: 'Send a chat message',
  description:
    "Sends a user message to a character (a new conversation, or conversationId's) through the messaging API, as a person chatting would, and returns the character's complete reply. When an EVENT_HANDLER plugin is installed on the character's agent, the plugin receives AGENT_MESSAGE_RECEIVED and may write the reply: if its first attempt fails, the call returns at once with that delivery (failedDelivery: the status, the plugin's answer and its own output, under untrusted) instead of waiting for a reply; after waitSeconds without a reply, it says why (e.g. the plugin accepted the event and wrote nothing). list_characters gives the ids.",
  inputSchema: {
    characterId: z.string().optional().describe('the character to talk to (or conversationId)'),
    conversationId: z.string().optional().describe('continue this conversation'),
    message: z.string().min(1).describe('the text to send'),
    waitSeconds: z.number().min(1).max(120).default(30),
  },
  outputSchema: {
    conversationId: z.string(),
    sent: anyObject,
    reply: anyObject.nullable(),
    failedDelivery: anyObject.optional(),
    noReply: anyObject.optional(),
  },
  annotations: WRITES,
  async run(args, connection) {
    if (!args.characterId && !args.conversationId)
      throw new UserError(
        'give characterId (list_characters lists them) or conversationId to continue a conversation',
      );
    const { ChatSession } = await import('../../ui/chat/chat-session.js');
    const session = new ChatSession(connection.client, args.characterId, {
      conversationId: args.conversationId,
    });
    let timer: NodeJS.Timeout | undefined;
    let watch: DeliveryWatch | undefined;
    let failed: (failure: DeliveryFailure) => void = () => undefined;
    const failure = new Promise<Outcome>((resolve) => {
      failed = (f) => resolve({ kind: 'failed', failure: f });
    });
    // The log is read from a little before the message is posted (the emulator's clock is this machine's).
    const sentAfter = new Date(Date.now() - 1_000).toISOString();
    // The message's AGENT_MESSAGE_RECEIVED delivery is watched from the moment the message is known.
    const stopListening = session.on((update) => {
      if (update.type !== 'USER_MESSAGE_SENT' || watch) return;
      watch = watchMessageDelivery(connection.client, {
        conversationId: update.message.conversationId,
        messageId: update.message.id,
        sentAfter,
      });
      void watch.failure.then(failed);
    });
    try {
      const conversation = await session.start();
      const late = new Promise<Outcome>((resolve) => {
        timer = setTimeout(() => resolve({ kind: 'timeout' }), args.waitSeconds * 1000);
      });
      const reply = session.send(args.message);
      // Given up on (a failure, the time): the session's close ends the wait, which is no news then.
      reply.catch(() => undefined);
      const outcome = await Promise.race([
        reply.then((message): Outcome => ({ kind: 'reply', reply: message })),
        failure,
        late,
      ]);
      const sent = session.messages.find((m) => m.sender === 'USER' && m.content === args.message);
      const base = {
        conversationId: conversation.id,
        sent: sent ? messageOf(sent) : { untrusted: { content: args.message } },
      };
      if (outcome.kind === 'reply')
        return result(
          `The character replied in conversation ${conversation.id}.`,
          { ...base, reply: messageOf(outcome.reply) },
          connection.credentials,
        );
      if (outcome.kind === 'failed') {
        const { delivery, attempt } = outcome.failure;
        const failedDelivery = deliveryDetail(delivery, { output: true });
        const summary = `Plugin ${delivery.pluginId} failed the AGENT_MESSAGE_RECEIVED event of the message (${answerOf(outcome.failure)} on attempt ${attempt.number}, delivery ${delivery.id}, now ${delivery.status}), so no reply is awaited: its answer and its own output are in failedDelivery (untrusted); get_delivery reads the delivery again, follow_plugin_output all the plugin wrote.${outputNote(failedDelivery)}`;
        return result(summary, { ...base, reply: null, failedDelivery }, connection.credentials);
      }
      const state = watch?.state();
      const reason = inToolTerms(noReplyExplanation(conversation.id, args.waitSeconds, state));
      return result(
        `${reason}.`,
        {
          ...base,
          reply: null,
          noReply: {
            reason,
            deliveries: (state?.deliveries ?? []).map((d) => ({
              id: d.id,
              pluginId: d.pluginId,
              status: d.status,
              responseStatus: d.attempts[0]?.responseStatus ?? null,
            })),
          },
        },
        connection.credentials,
      );
    } finally {
      stopListening();
      watch?.stop();
      clearTimeout(timer);
      session.close();
    }
  },
});
