import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../../http.js';
import { notFound } from '../../errors.js';
import { requireInstanceScope } from '../../auth/scopes.js';
import type { Services } from '../../services.js';
import type { ConversationRecord } from '../../model.js';
import { params, type RouteOptions } from '../common.js';
import { agentMessageBody } from '../../messaging/message-input.js';
import type { PluginPacket } from '../../messaging/conversation-service.js';

/** The instance behind an installation token, if it holds AGENT_MESSAGE_WRITE on this agent; else 401/403. */
function requireAgentMessageWriter(services: Services, request: FastifyRequest, agentId: string): void {
  requireInstanceScope(services.db, request, 'AGENT_MESSAGE_WRITE', { type: 'AGENT', id: agentId });
}

/** The conversation, if its character belongs to the agent; otherwise a 404. */
function findAgentConversation(services: Services, agentId: string, conversationId: string): ConversationRecord {
  const conversation = services.db.conversations.get(conversationId);
  const character = conversation && services.db.characters.get(conversation.characterId);
  if (!conversation || !character || character.agentId !== agentId) throw notFound('conversation', conversationId);
  return conversation;
}

/**
 * `POST /api/agents/:agentId/conversations/:conversationId/messages`: a plugin instance with
 * AGENT_MESSAGE_WRITE writes its character's reply, one packet per call (see writePluginPacket).
 */
export default async function agentMessageRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  app.post(
    '/agents/:agentId/conversations/:conversationId/messages',
    {
      schema: { params: params('agentId', 'conversationId'), body: agentMessageBody },
      // Before validation: a caller without the right token learns that first, whatever its body.
      preValidation: async (request) => requireAgentMessageWriter(services, request, (request.params as { agentId: string }).agentId),
    },
    async (request, reply) => {
      const { agentId, conversationId } = request.params as { agentId: string; conversationId: string };
      const conversation = findAgentConversation(services, agentId, conversationId);
      const result = await services.messaging.writePluginPacket(conversation, request.body as PluginPacket);
      reply.status(result.created ? 201 : 200);
      return ok(result.message);
    },
  );
}
