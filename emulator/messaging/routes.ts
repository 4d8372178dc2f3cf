import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { badRequest, detail } from '../errors.js';
import type { ConversationRecord } from '../model.js';
import { params, typed, type RouteOptions } from '../api/common.js';
import {
  EventStream,
  ConversationCreateSchema,
  ConversationSchema,
  DEFAULT_MESSAGE_PAGE,
  MAX_MESSAGE_PAGE,
  MessageListQuerySchema,
  MessageSchema,
  CharacterMessageSentSchema,
  MessageSendSchema,
  Ok,
  OkPage,
  errorResponses,
  type RawQuery,
} from '#contract';
import { apiKeyFromHeader, requestApiKey } from './api-key-auth.js';
import type { MessagingRouteDeps } from './messaging.js';
import { linksTo, MADE_ID } from '../openapi/links.js';

/** A conversation as the API shows it (its org stays internal). */
function publicConversation(c: ConversationRecord) {
  return { id: c.id, characterId: c.characterId, createdAt: c.createdAt, updatedAt: c.updatedAt };
}

/** The query of GET /conversations/:id/messages (MessageListQuerySchema, read here): `after` and `limit` once each; nothing else. */
function parseListQuery(query: RawQuery): { after: string | undefined; limit: number } {
  const unknown = Object.keys(query).find((key) => key !== 'after' && key !== 'limit');
  if (unknown !== undefined)
    throw badRequest('Invalid query parameters', [
      detail(
        [unknown],
        'unrecognized_keys',
        'after | limit',
        unknown,
        `unknown query parameter ${unknown}`,
      ),
    ]);
  const { after, limit: raw } = query;
  if (
    after !== undefined &&
    (typeof after !== 'string' || after.length < 1 || after.length > 200)
  ) {
    throw badRequest('Invalid query parameters', [
      detail(
        ['after'],
        'invalid_type',
        'a message id, given once',
        after,
        'after must be one message id',
      ),
    ]);
  }
  if (raw === undefined) return { after, limit: DEFAULT_MESSAGE_PAGE };
  const limit = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || limit < 1 || limit > MAX_MESSAGE_PAGE) {
    throw badRequest('Invalid query parameters', [
      detail(
        ['limit'],
        'invalid_type',
        `integer from 1 to ${MAX_MESSAGE_PAGE}`,
        raw,
        `limit must be a whole number from 1 to ${MAX_MESSAGE_PAGE}, given once`,
      ),
    ]);
  }
  return { after, limit };
}

/** The messaging API (conversations, messages, conversation stream) behind `Authorization: Bearer <apiKey>`; a key reaches only its org's. */
export default async function conversationRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<MessagingRouteDeps>,
): Promise<void> {
  const app = typed(fastify);
  const messaging = services.messaging;
  const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
  app.decorateRequest('apiKey', null);
  // onRequest, so a missing or wrong key is a 401 before any body or query is looked at.
  app.addHook('onRequest', async (request) => {
    request.apiKey = apiKeyFromHeader(services, request.headers.authorization);
  });

  app.post(
    '/conversations',
    {
      links: {
        201: linksTo(
          'conversation',
          { conversationId: MADE_ID },
          {
            getConversation: 'Get {made}',
            sendMessage: "Send a user's message into {made}",
            listMessages: 'List the messages of {made}',
            streamConversationEvents: 'Stream the events of {made}',
          },
        ),
      },
      schema: {
        operationId: 'createConversation',
        tags: ['messaging'],
        summary: 'Start a conversation with a character',
        description:
          "With an org's messaging API key: starts a conversation with one of the org's characters.",
        body: ConversationCreateSchema,
        response: { 201: Ok(ConversationSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { characterId } = request.body;
      const conversation = await messaging.createConversation(
        requestApiKey(request).orgId,
        characterId,
      );
      return reply.status(201).send(ok(publicConversation(conversation)));
    },
  );

  app.get(
    '/conversations/:conversationId',
    {
      schema: {
        operationId: 'getConversation',
        tags: ['messaging'],
        summary: 'Get a conversation',
        description:
          "With the messaging API key of the conversation's org: reads the conversation.",
        params: params('conversationId'),
        response: { 200: Ok(ConversationSchema), ...errors },
      },
    },
    async (request) => {
      const { conversationId } = request.params;
      return ok(
        publicConversation(
          messaging.findConversation(requestApiKey(request).orgId, conversationId),
        ),
      );
    },
  );

  const sendSchema = {
    params: params('conversationId'),
    body: MessageSendSchema,
    response: { 201: Ok(MessageSchema), ...errors },
  };
  app.post(
    '/conversations/:conversationId/messages',
    {
      schema: {
        operationId: 'sendMessage',
        tags: ['messaging'],
        summary: "Send a user's message",
        description:
          "With the messaging API key of the conversation's org: sends a user's message. The character replies in packets (CHARACTER_MESSAGE_SENT on the conversation stream); a character whose agent has EVENT_HANDLER plugins sends them AGENT_MESSAGE_RECEIVED and lets them reply.",
        ...sendSchema,
      },
    },
    async (request, reply) => {
      const { conversationId } = request.params;
      const conversation = messaging.findConversation(requestApiKey(request).orgId, conversationId);
      const { content, type = 'TEXT', attachments = [] } = request.body;
      const message = await messaging.sendUserMessage(conversation, { content, type, attachments });
      return reply.status(201).send(ok(message));
    },
  );

  const listSchema = {
    params: params('conversationId'),
    querystring: MessageListQuerySchema,
    response: { 200: OkPage(MessageSchema), ...errors },
  };
  app.get(
    '/conversations/:conversationId/messages',
    {
      schema: {
        operationId: 'listMessages',
        tags: ['messaging'],
        summary: "List a conversation's messages, oldest first",
        description:
          "With the messaging API key of the conversation's org: lists its messages, oldest first, a streaming one with its content so far (poll with `after`).",
        ...listSchema,
      },
    },
    async (request) => {
      const { conversationId } = request.params;
      const conversation = messaging.findConversation(requestApiKey(request).orgId, conversationId);
      const { after, limit } = parseListQuery(request.query);
      const page = messaging.listMessages(conversation.id, after, limit);
      const last = page.data[page.data.length - 1];
      return ok(page.data, {
        pagination: {
          type: 'cursor' as const,
          limit,
          hasNext: page.hasNext,
          nextCursor: page.hasNext && last ? last.id : null,
        },
      });
    },
  );

  const streamResponse = {
    200: EventStream(
      'Server-sent events: `: connected` first, then one `CHARACTER_MESSAGE_SENT` event per packet of a character message (a client that connects mid-reply first gets the message as it stands), data a CharacterMessageSent; `: keep-alive` comments every 15 s. Frames carry no `id:` line: nothing is replayed on reconnection (poll the messages for history)',
      CharacterMessageSentSchema,
    ),
    ...errorResponses(400, 401, 403, 404, 429),
  };
  app.get(
    '/conversations/:conversationId/events',
    {
      schema: {
        operationId: 'streamConversationEvents',
        tags: ['messaging'],
        summary: "Stream a conversation's events as server-sent events",
        description:
          "With the messaging API key of the conversation's org: streams CHARACTER_MESSAGE_SENT per packet of the character's replies, as server-sent events without ids.",
        params: params('conversationId'),
        response: streamResponse,
      },
    },
    async (request, reply) => {
      const { conversationId } = request.params;
      const apiKey = requestApiKey(request);
      const conversation = messaging.findConversation(apiKey.orgId, conversationId);
      messaging.checkStreamCap(apiKey.id);
      // Written by hand on the raw response: every packet is one frame, serialized once for all clients.
      reply.hijack();
      messaging.openConversationStream(conversation.id, reply.raw, apiKey.id);
    },
  );
}
