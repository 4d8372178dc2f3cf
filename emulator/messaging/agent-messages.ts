import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { notFound } from '../errors.js';
import { requireInstanceScope } from '../auth/scopes.js';
import type { ConversationRecord } from '../model.js';
import { params, typed, type RouteOptions } from '../api/common.js';
import { AgentMessageWriteSchema, MessageSchema, Ok, errorResponses } from '#contract';
import type { MessagingRouteDeps } from './messaging.js';

/** The conversation, if its character belongs to the agent; otherwise a 404. */
function findAgentConversation(
  services: MessagingRouteDeps,
  agentId: string,
  conversationId: string,
): ConversationRecord {
  const conversation = services.db.conversations.get(conversationId);
  const character = conversation && services.db.characters.get(conversation.characterId);
  if (!conversation || !character || character.agentId !== agentId)
    throw notFound('conversation', conversationId);
  return conversation;
}

/** `POST /api/agents/:agentId/conversations/:conversationId/messages`: an AGENT_MESSAGE_WRITE instance writes a reply packet. */
export default async function agentMessageRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<MessagingRouteDeps>,
): Promise<void> {
  const app = typed(fastify);
  const message = Ok(MessageSchema);
  app.post(
    '/agents/:agentId/conversations/:conversationId/messages',
    {
      schema: {
        operationId: 'writeAgentMessage',
        tags: ['agent-messages'],
        summary: "Write (or stream) an agent's message into a conversation",
        description:
          "A plugin, with an installation access token that has AGENT_MESSAGE_WRITE on the agent, writes its character's reply: each call is one packet (without `messageId` a new message, with it the next delta). Every packet reaches the conversation stream as CHARACTER_MESSAGE_SENT.",
        params: params('agentId', 'conversationId'),
        body: AgentMessageWriteSchema,
        response: {
          200: message,
          201: message,
          ...errorResponses(400, 401, 403, 404, 409, 413, 415),
        },
      },
      // Before validation: a caller without the right token learns that first, whatever its body.
      preValidation: async (request) =>
        requireInstanceScope(services.db, request, 'AGENT_MESSAGE_WRITE', {
          type: 'AGENT',
          id: request.params.agentId,
        }),
    },
    async (request, reply) => {
      const { agentId, conversationId } = request.params;
      const conversation = findAgentConversation(services, agentId, conversationId);
      const result = await services.messaging.writePluginPacket(conversation, request.body);
      reply.status(result.created ? 201 : 200);
      return ok(result.message);
    },
  );
}
