import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { badRequest, detail } from '../../errors.js';
import type { ConversationRecord } from '../../model.js';
import { params, type RouteOptions } from '../common.js';
import { userMessageBody, type MessageInput } from '../../messaging/message-input.js';
import { apiKeyFromHeader, requestApiKey } from './api-key-auth.js';

/** Messages per page of `GET /conversations/:id/messages` unless `limit` says otherwise. */
export const DEFAULT_MESSAGE_LIMIT = 50;
export const MAX_MESSAGE_LIMIT = 100;

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['characterId'],
  properties: { characterId: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', minLength: 1, maxLength: 200 },
    limit: { type: 'string' },
  },
} as const;

/** A conversation as the API shows it (its org stays internal). */
export function publicConversation(c: ConversationRecord) {
  return { id: c.id, characterId: c.characterId, createdAt: c.createdAt, updatedAt: c.updatedAt };
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MESSAGE_LIMIT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > MAX_MESSAGE_LIMIT) {
    throw badRequest('Invalid query parameters', [detail(['limit'], 'invalid_type', `integer from 1 to ${MAX_MESSAGE_LIMIT}`, raw, `limit must be a whole number from 1 to ${MAX_MESSAGE_LIMIT}`)]);
  }
  return n;
}

/**
 * The messaging API: conversations, messages (polling) and the server-sent-events stream,
 * all behind `Authorization: Bearer <apiKey>`; a key reaches only its org's conversations.
 */
export default async function conversationRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const messaging = services.messaging;
  app.decorateRequest('apiKey', null);
  // onRequest, so a missing or wrong key is a 401 before any body or query is looked at.
  app.addHook('onRequest', async (request) => {
    request.apiKey = apiKeyFromHeader(services, request.headers.authorization);
  });

  app.post('/conversations', { schema: { body: createBody } }, async (request, reply) => {
    const { characterId } = request.body as { characterId: string };
    const conversation = await messaging.createConversation(requestApiKey(request).orgId, characterId);
    reply.status(201);
    return ok(publicConversation(conversation));
  });

  app.get('/conversations/:conversationId', { schema: { params: params('conversationId') } }, async (request) => {
    const { conversationId } = request.params as { conversationId: string };
    return ok(publicConversation(messaging.findConversation(requestApiKey(request).orgId, conversationId)));
  });

  app.post('/conversations/:conversationId/messages', { schema: { params: params('conversationId'), body: userMessageBody } }, async (request, reply) => {
    const { conversationId } = request.params as { conversationId: string };
    const conversation = messaging.findConversation(requestApiKey(request).orgId, conversationId);
    const message = await messaging.sendUserMessage(conversation, request.body as MessageInput);
    reply.status(201);
    return ok(message);
  });

  app.get('/conversations/:conversationId/messages', { schema: { params: params('conversationId'), querystring: listQuery } }, async (request) => {
    const { conversationId } = request.params as { conversationId: string };
    const query = request.query as { after?: string; limit?: string };
    const conversation = messaging.findConversation(requestApiKey(request).orgId, conversationId);
    const limit = parseLimit(query.limit);
    const page = messaging.listMessages(conversation.id, query.after, limit);
    const last = page.data[page.data.length - 1];
    return ok(page.data, { pagination: { type: 'cursor', limit, hasNext: page.hasNext, nextCursor: page.hasNext && last ? last.id : null } });
  });

  app.get('/conversations/:conversationId/events', { schema: { params: params('conversationId') } }, async (request, reply) => {
    const { conversationId } = request.params as { conversationId: string };
    const apiKey = requestApiKey(request);
    const conversation = messaging.findConversation(apiKey.orgId, conversationId);
    // Written by hand on the raw response: every packet is one frame, serialized once for all clients.
    reply.hijack();
    messaging.openEventStream(conversation.id, reply.raw, apiKey.id);
  });
}
