import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { found, notFound } from '../errors.js';
import { listed, params, querySpec, typed, type RouteOptions } from '../api/common.js';
import {
  AdminConversationSchema,
  ListQuery,
  MessageSchema,
  Ok,
  OkPage,
  errorResponses,
} from '#contract';
import { ADMIN_ONLY, type AdminDeps } from './common.js';

const CONVERSATION_QUERY = querySpec(
  AdminConversationSchema,
  ['id', 'characterId', 'orgId', 'createdAt', 'updatedAt'],
  ['id', 'characterId'],
);
const MESSAGE_QUERY = querySpec(
  MessageSchema,
  ['id', 'sender', 'type', 'isStreaming', 'createdAt', 'updatedAt'],
  ['content'],
);

/** Admin API for conversations (`/_emulator/conversations`): every org's conversations and messages, on the shared query system. */
export default async function adminConversationRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db, messaging } = services;
  const errors = errorResponses(400, 401, 403, 404);

  app.get(
    '/conversations',
    {
      schema: {
        operationId: 'listAdminConversations',
        tags: ['admin-messaging'],
        summary: 'List every conversation',
        description: `${ADMIN_ONLY} lists the conversations of every org, with the query system.`,
        querystring: ListQuery(CONVERSATION_QUERY),
        response: { 200: OkPage(AdminConversationSchema), ...errors },
      },
    },
    async (request) => listed(db.conversations, request.query, CONVERSATION_QUERY),
  );

  app.get(
    '/conversations/:conversationId',
    {
      schema: {
        operationId: 'getAdminConversation',
        tags: ['admin-messaging'],
        summary: 'Get a conversation',
        description: `${ADMIN_ONLY} reads a conversation of any org.`,
        params: params('conversationId'),
        response: { 200: Ok(AdminConversationSchema), ...errors },
      },
    },
    async (request) => {
      const { conversationId } = request.params;
      return ok(found(db.conversations.get(conversationId), 'conversation', conversationId));
    },
  );

  const messagesSchema = {
    params: params('conversationId'),
    querystring: ListQuery(MESSAGE_QUERY),
    response: { 200: OkPage(MessageSchema), ...errors },
  };
  app.get(
    '/conversations/:conversationId/messages',
    {
      schema: {
        operationId: 'listAdminConversationMessages',
        tags: ['admin-messaging'],
        summary: "List a conversation's messages",
        description: `${ADMIN_ONLY} lists a conversation's messages, oldest first, a streaming one with its content so far.`,
        ...messagesSchema,
      },
    },
    async (request) => {
      const { conversationId } = request.params;
      if (!db.conversations.has(conversationId)) throw notFound('conversation', conversationId);
      // Oldest first unless told otherwise (neither @sortBy nor @sortOrder), as the messaging API lists them.
      const raw =
        request.query['@sortBy'] === undefined
          ? { '@sortOrder': 'asc', ...request.query }
          : request.query;
      return listed(
        db.messages,
        raw,
        MESSAGE_QUERY,
        { where: [['conversationId', conversationId]] },
        (m) => messaging.withLiveContent(m),
      );
    },
  );
}
