import type { Api } from '../api.js';
import { openEventStream, type EventsOptions, type EventStream } from '../event-stream.js';
import { segment as s, plainParams } from '../query.js';
import type { ServerSentEvent } from '../../shared/http/sse.js';
import type { CallOptions } from '../transport.js';
import type { CharacterMessageSent, Conversation, Message, MessageSend } from '../types.js';

/** Query of the message listing (not the `@` query system): `after` a message id; `cursor`, its alias, lets `paginate()` follow it. */
export interface MessageListQuery {
  after?: string;
  limit?: number;
  cursor?: string;
}

/** The messaging API (at messagingUrl, authenticated with the API key). */
export function messagingResource(api: Api) {
  return {
    conversations: {
      /** POST /conversations `{ characterId }` */
      create: (body: { characterId: string; [key: string]: unknown }, options?: CallOptions) =>
        api.data<Conversation>('POST', '/conversations', { body, options }),
      /** GET /conversations/:id */
      get: (conversationId: string, options?: CallOptions) =>
        api.data<Conversation>('GET', `/conversations/${s(conversationId)}`, { options }),
    },
    messages: {
      /** POST /conversations/:id/messages */
      send: (conversationId: string, body: MessageSend, options?: CallOptions) =>
        api.data<Message>('POST', `/conversations/${s(conversationId)}/messages`, {
          body,
          options,
        }),
      /** GET /conversations/:id/messages, oldest first; `after` for polling. */
      list: (conversationId: string, query: MessageListQuery = {}, options?: CallOptions) =>
        api.page<Message>('GET', `/conversations/${s(conversationId)}/messages`, {
          query: plainParams({
            after: query.after ?? (query.cursor === '' ? undefined : query.cursor),
            limit: query.limit,
          }),
          options,
        }),
    },
    /** GET /conversations/:id/events: the conversation's server-sent events, until the stream ends or `signal` aborts. */
    events: (conversationId: string, options: EventsOptions = {}): EventStream =>
      openEventStream(api, `/conversations/${s(conversationId)}/events`, [], options),
  };
}

/** Narrows a server-sent event to `CHARACTER_MESSAGE_SENT` (`{ message, contentDelta }`). */
export function isCharacterMessageSent(
  event: ServerSentEvent,
): event is ServerSentEvent<CharacterMessageSent> {
  return (
    event.event === 'CHARACTER_MESSAGE_SENT' &&
    typeof event.data === 'object' &&
    event.data !== null
  );
}

export type MessagingResource = ReturnType<typeof messagingResource>;
