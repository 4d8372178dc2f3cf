import type { Static } from '@sinclair/typebox';
import type { MessageStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `message` step: a user writes in a conversation (messaging API); an EVENT_HANDLER on the
// character's agent is told (AGENT_MESSAGE_RECEIVED). Its replies, after this message, are what the
// step's reply, replies and none expectations read.

export type MessageStep = Static<typeof MessageStepSchema>;

/** A text as a label shows it: quoted, at most 40 characters. */
function shortText(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}…` : text);
}

export const messageStep: StepModule<'message'> = {
  label: (step) => `message ${shortText(step.text)}`,
  run: async (step, context) => {
    const sent = await context.client.messaging.messages.send(step.conversation, {
      content: step.text,
      type: 'TEXT',
    });
    context.scope.conversationId = step.conversation;
    context.scope.messageId = sent.id;
    return { id: sent.id, conversationId: step.conversation };
  },
};
