import { z } from 'zod';
import { UserError } from '../../errors.js';
import { messageOf, result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const sendChatMessage = defineTool({
  name: 'send_chat_message',
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
    try {
      const conversation = await session.start();
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), args.waitSeconds * 1000);
      });
      const reply = await Promise.race([session.send(args.message), late]);
      const sent = session.messages.find((m) => m.sender === 'USER' && m.content === args.message);
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
  },
});
