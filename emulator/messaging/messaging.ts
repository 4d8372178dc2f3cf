import type { ServerResponse } from 'node:http';
import type { CharacterRecord, ConversationRecord, MessageRecord } from '../model.js';
import type { AgentMessageWrite } from '#contract';
import { HttpError, badRequest, conflict, detail, errorForLog, notFound } from '../errors.js';
import { newId, nowIso } from '../store/ids.js';
import { StoreClosed } from '../store/store.js';
import {
  createReplyEngines,
  ReplyEngineError,
  type ChatTurn,
  type EngineFor,
  type OpenAiEngineOptions,
} from './characters/index.js';
import { ConversationStreams, type StreamBufferLimits } from './conversation-streams.js';
import {
  LiveReply,
  failureText,
  type LiveReplyHost,
  type ReplyFailure,
  type ReplyOrigin,
} from './live-reply.js';
import { AGENT_MESSAGE_RECEIVED, replyingInstances } from './plugin-replies.js';
import {
  asChatText,
  checkMessageInput,
  MAX_STREAMED_CONTENT_LENGTH,
  type MessageInput,
} from './message-input.js';
import {
  addUserMessage,
  createConversation,
  finishMessages,
  saveReplyMessage,
  touchConversation,
  type ConversationStore,
} from './conversation-service.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { StoreDeps } from '../context.js';

/** What messaging needs of the emulator's services: the store and its collections, and the webhook dispatcher. */
export interface MessagingDeps extends ConversationStore {
  dispatcher: WebhookDispatcher;
}

/** What the messaging routes need: the store and the messaging service. */
export interface MessagingRouteDeps extends StoreDeps {
  messaging: Messaging;
}

/** Messaging settings of `startEmulator({ messaging })`. */
export interface MessagingOptions {
  /** Code points per packet of scripted replies, for characters that set none. */
  packetSize?: number;
  /** Milliseconds between packets of scripted replies, for characters that set none; 0 sends them back to back. */
  packetIntervalMs?: number;
  /** A plugin-streamed message that gets no packet for this long is ended with an error; default 60 000. */
  pluginReplyTimeoutMs?: number;
  /** Interval of `: keep-alive` comments on conversation streams; default 15 000. */
  keepAliveMs?: number;
  /** Unsent bytes held for slow readers of conversation streams (per stream, per API key, in all). */
  streamBuffers?: StreamBufferLimits;
  /** Conversation streams one API key may hold open at once; one more is a 429. Default MAX_STREAMS_PER_API_KEY (64). */
  maxStreamsPerApiKey?: number;
}

/** Conversation streams one API key may hold open at once by default: one key opened 20,175 until the process ran out of descriptors. */
export const MAX_STREAMS_PER_API_KEY = 64;

/** Turns of history an engine sees at most (the newest ones). */
const HISTORY_TURNS = 50;
const DEFAULT_PLUGIN_REPLY_TIMEOUT_MS = 60_000;

/** How a streaming message ends whose first packet the store refused (the plugin that wrote it was told). */
const FIRST_PACKET_NOT_STORED = {
  code: 'NOT_STORED',
  message:
    "the emulator could not store this reply's first packet, and told the plugin so (the emulator's log says why)",
} as const;

/** The messaging service: conversations, user messages, and character replies streamed packet by packet (by an engine or a plugin). */
export class Messaging implements LiveReplyHost {
  readonly streams: ConversationStreams;
  private readonly maxStreamsPerApiKey: number;
  private readonly live = new Map<string, LiveReply>();
  /** Engine replies of one conversation run one after the other, so each sees the last in its history. */
  private readonly queues = new Map<string, Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private readonly engineFor: EngineFor;
  /** Where a failure no request answers is told (a reply or an event the store refused); default stderr. */
  private readonly log: (line: string) => void;
  /** Bumped by reset/close so queued replies of before do not start afterwards. */
  private generation = 0;

  constructor(
    private readonly services: MessagingDeps,
    private readonly options: MessagingOptions & {
      llm?: OpenAiEngineOptions;
      log?: (line: string) => void;
    } = {},
  ) {
    this.streams = new ConversationStreams(options.keepAliveMs, options.streamBuffers);
    this.engineFor = createReplyEngines({ llm: options.llm });
    this.maxStreamsPerApiKey = options.maxStreamsPerApiKey ?? MAX_STREAMS_PER_API_KEY;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  /** Ends, in the store, replies that were streaming when the emulator last stopped. */
  async finishInterrupted(): Promise<void> {
    const failure = {
      code: 'INTERRUPTED',
      message: 'the emulator stopped before this reply was complete',
    };
    const ended = this.services.db.messages.where('isStreaming', true).map((message) => ({
      ...message,
      content: message.content + failureText(message.content, failure),
      isStreaming: false,
      error: failure,
      updatedAt: nowIso(),
    }));
    await finishMessages(this.services, ended);
  }

  /** Starts a conversation with a character of the key's org; an unknown character is a 400 with details. */
  async createConversation(orgId: string, characterId: string): Promise<ConversationRecord> {
    const character = this.services.db.characters.get(characterId);
    if (!character || character.orgId !== orgId) {
      throw badRequest(`No character ${characterId} in this API key's org`, [
        detail(
          ['characterId'],
          'not_found',
          "the id of a character of the API key's org",
          characterId,
          `character ${characterId} not found`,
        ),
      ]);
    }
    const now = nowIso();
    return createConversation(this.services, {
      id: newId('conv'),
      characterId,
      orgId,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** The conversation, if the org may reach it; otherwise a 404. */
  findConversation(orgId: string, conversationId: string): ConversationRecord {
    const conversation = this.services.db.conversations.get(conversationId);
    if (!conversation || conversation.orgId !== orgId)
      throw notFound('conversation', conversationId);
    return conversation;
  }

  /** Stores a user message and starts the reply: the agent's EVENT_HANDLER instances get AGENT_MESSAGE_RECEIVED (SYNC awaited), or the engine. */
  async sendUserMessage(
    conversation: ConversationRecord,
    input: MessageInput,
  ): Promise<MessageRecord> {
    checkMessageInput(input);
    const now = nowIso();
    const message: MessageRecord = {
      id: newId('msg'),
      conversationId: conversation.id,
      sender: 'USER',
      type: input.type,
      content: input.content,
      attachments: input.attachments,
      isStreaming: false,
      createdAt: now,
      updatedAt: now,
    };
    await addUserMessage(this.services, conversation, message);
    const character = this.services.db.characters.get(conversation.characterId);
    if (!character) {
      this.failAtOnce(conversation.id, {
        code: 'NOT_FOUND',
        message: `character ${conversation.characterId} no longer exists`,
      });
      return message;
    }
    const replying = character.agentId
      ? replyingInstances(this.services.db, character.agentId)
      : [];
    if (character.agentId && replying.length > 0) {
      // Plugin-driven: the plugin writes the reply; a delivery problem shows in the delivery log, not in this request
      // (and an event that could not even be logged, in the reply: deliveryRefused).
      const data = {
        agentId: character.agentId,
        characterId: character.id,
        conversationId: conversation.id,
        message,
      };
      await this.services.dispatcher
        .emitForInstances(AGENT_MESSAGE_RECEIVED, replying, data)
        .catch((error: unknown) => this.deliveryRefused(conversation.id, message, error));
    } else if (character.engine === 'plugin') {
      this.failAtOnce(conversation.id, {
        code: 'NOT_CONFIGURED',
        message: `${character.name} is plugin-driven, but no EVENT_HANDLER instance subscribed to AGENT_MESSAGE_RECEIVED is attached to ${character.agentId ? `agent ${character.agentId}` : 'an agent (the character has none)'}`,
      });
    } else {
      this.enqueueEngineReply(conversation.id, character, message);
    }
    return message;
  }

  /** A message as listings show it: a streaming reply with its content so far (kept in memory until it ends). */
  withLiveContent(message: MessageRecord): MessageRecord {
    return this.live.get(message.id)?.message ?? message;
  }

  /** One page of a conversation's messages, oldest first, after the message `after` if given. */
  listMessages(
    conversationId: string,
    after: string | undefined,
    limit: number,
  ): { data: MessageRecord[]; hasNext: boolean } {
    const all = this.services.db.messages.where('conversationId', conversationId);
    let start = 0;
    if (after !== undefined) {
      const index = all.findIndex((m) => m.id === after);
      if (index === -1) {
        throw badRequest('Invalid query parameters', [
          detail(
            ['after'],
            'not_found',
            'the id of a message of this conversation',
            after,
            `no message ${after} in conversation ${conversationId}`,
          ),
        ]);
      }
      start = index + 1;
    }
    const data = all.slice(start, start + limit).map((m) => this.withLiveContent(m));
    return { data, hasNext: start + limit < all.length };
  }

  /** Throws a 429 naming the cap when `apiKeyId` holds as many conversation streams as it may. */
  checkStreamCap(apiKeyId: string): void {
    const cap = this.maxStreamsPerApiKey;
    if (this.streams.countForApiKey(apiKeyId) < cap) return;
    throw new HttpError(
      'TOO_MANY_REQUESTS',
      `This API key holds ${cap} open conversation streams, the most it may (MAX_STREAMS_PER_API_KEY): close one before opening another`,
    );
  }

  /** Opens a conversation stream on a hijacked response; a streaming message so far comes first. */
  openConversationStream(
    conversationId: string,
    response: ServerResponse,
    apiKeyId?: string,
  ): void {
    const catchUp = [...this.live.values()]
      .filter((reply) => reply.conversationId === conversationId)
      .flatMap((reply) => reply.catchUpFrame() ?? []);
    this.streams.open(conversationId, response, catchUp, apiKeyId);
  }

  /**
   * A plugin writes one packet: without `messageId` it creates a CHARACTER message (TEXT streams unless `isStreaming: false`);
   * with it, `content` is the next delta and `isStreaming: false` ends the message.
   */
  async writePluginPacket(
    conversation: ConversationRecord,
    packet: AgentMessageWrite,
  ): Promise<{ message: MessageRecord; created: boolean }> {
    const type = packet.type ?? 'TEXT';
    if (packet.messageId === undefined) {
      if (type !== 'TEXT' && packet.isStreaming === true) {
        throw badRequest(
          `Only TEXT messages stream; send the whole ${type} message with isStreaming false (or omitted)`,
          [
            detail(
              ['isStreaming'],
              'invalid_literal',
              'false or absent',
              true,
              `a ${type} message cannot stream`,
            ),
          ],
        );
      }
      const attachments = packet.attachments ?? [];
      const final = type !== 'TEXT' || packet.isStreaming === false;
      // A streaming message's text may come in later packets.
      checkMessageInput({ content: final ? packet.content : 'x', type, attachments });
      const reply = this.startReply(conversation.id, 'plugin', type, attachments);
      const message = reply.packet(packet.content, final);
      try {
        await reply.acknowledged();
      } catch (error) {
        // The plugin is told (507) and gets no messageId to go on with: a message it began to stream ends now, with the
        // failure, for the clients that saw it start. Left open, it would end by the idle timeout, long after the plugin
        // sent its text again as a new message.
        if (!reply.ended) reply.fail(FIRST_PACKET_NOT_STORED);
        throw error;
      }
      return { message, created: true };
    }
    const reply = this.live.get(packet.messageId);
    if (!reply || reply.conversationId !== conversation.id || reply.origin !== 'plugin') {
      const stored = this.services.db.messages.get(packet.messageId);
      if (
        stored &&
        stored.conversationId === conversation.id &&
        stored.sender === 'CHARACTER' &&
        !stored.isStreaming
      ) {
        throw conflict(
          `Message ${packet.messageId} has already ended (isStreaming is false); start a new message by leaving out messageId`,
        );
      }
      throw notFound('streaming message', packet.messageId);
    }
    if (packet.attachments !== undefined) {
      throw badRequest('attachments can only be given with the first packet of a message', [
        detail(
          ['attachments'],
          'unrecognized_keys',
          'absent',
          packet.attachments,
          'attachments are set when the message is created',
        ),
      ]);
    }
    if (reply.message && type !== reply.message.type) {
      throw badRequest(`Message ${packet.messageId} is of type ${reply.message.type}`, [
        detail(
          ['type'],
          'invalid_enum_value',
          reply.message.type,
          type,
          `a packet must keep the message's type ${reply.message.type}`,
        ),
      ]);
    }
    const soFar = reply.message?.content.length ?? 0;
    if (soFar + packet.content.length > MAX_STREAMED_CONTENT_LENGTH) {
      throw badRequest(
        `A streamed message may hold at most ${MAX_STREAMED_CONTENT_LENGTH} characters`,
        [
          detail(
            ['content'],
            'too_big',
            `at most ${MAX_STREAMED_CONTENT_LENGTH - soFar} more characters`,
            `${packet.content.length} characters`,
            'the message would grow past the limit',
          ),
        ],
      );
    }
    const final = packet.isStreaming === false;
    const message = reply.packet(packet.content, final);
    if (final) await reply.acknowledged();
    return { message, created: false };
  }

  /** LiveReplyHost: tells the emulator's log. */
  report(line: string): void {
    this.log(line);
  }

  /** LiveReplyHost: a reply sent its final packet. */
  ended(reply: LiveReply): void {
    this.live.delete(reply.id);
    const conversation = this.services.db.conversations.get(reply.conversationId);
    if (conversation && reply.message)
      touchConversation(this.services, conversation, reply.message.updatedAt).catch(
        (error: unknown) => {
          // The conversation's updatedAt only orders the list: a refusal is told, and the store closing is expected.
          if (error instanceof StoreClosed) return;
          this.report(
            `plugsmith emulator: conversation ${conversation.id}'s updatedAt could not be stored after reply ${reply.id}: ${errorForLog(error)}`,
          );
        },
      );
  }

  /** Ends every live reply and conversation stream (before the store is emptied by `reset()`). */
  async reset(): Promise<void> {
    await this.stopReplies();
    this.streams.closeAll();
  }

  /** Ends live replies (engines are aborted), waits for their final records, closes the streams. */
  async close(): Promise<void> {
    await this.stopReplies();
    this.streams.close();
  }

  private async stopReplies(): Promise<void> {
    this.generation++;
    for (const controller of this.controllers)
      controller.abort(new Error('the emulator is stopping'));
    const pending = [...this.live.values()].map((reply) => {
      if (!reply.ended)
        reply.fail({
          code: 'ABORTED',
          message: 'the emulator stopped before this reply was complete',
        });
      return reply.persisted();
    });
    await Promise.all([...pending, ...this.queues.values()]);
  }

  private startReply(
    conversationId: string,
    origin: ReplyOrigin,
    type: MessageRecord['type'] = 'TEXT',
    attachments: MessageRecord['attachments'] = [],
  ): LiveReply {
    const idleTimeoutMs =
      origin === 'plugin'
        ? (this.options.pluginReplyTimeoutMs ?? DEFAULT_PLUGIN_REPLY_TIMEOUT_MS)
        : undefined;
    const reply = new LiveReply(this, conversationId, origin, { type, attachments, idleTimeoutMs });
    this.live.set(reply.id, reply);
    return reply;
  }

  private failAtOnce(conversationId: string, failure: ReplyFailure): void {
    this.startReply(conversationId, 'engine').fail(failure);
  }

  /**
   * AGENT_MESSAGE_RECEIVED could not even be logged as a delivery, so no plugin will reply. The store closing (the emulator
   * stopping under the request) is expected. Anything else (a full disk, a bug) is told in the log, and the reply ends at
   * once with the failure, as for a character no one answers for: the conversation never waits for a reply that cannot come.
   */
  private deliveryRefused(conversationId: string, message: MessageRecord, error: unknown): void {
    if (error instanceof StoreClosed) return;
    this.report(
      `plugsmith emulator: ${AGENT_MESSAGE_RECEIVED} for message ${message.id} of conversation ${conversationId} could not be sent: ${errorForLog(error)}`,
    );
    this.failAtOnce(conversationId, {
      code: 'DELIVERY_FAILED',
      message:
        "the emulator could not send this message to the agent's plugin (the emulator's log says why)",
    });
  }

  private enqueueEngineReply(
    conversationId: string,
    character: CharacterRecord,
    userMessage: MessageRecord,
  ): void {
    const previous = this.queues.get(conversationId);
    const generation = this.generation;
    const start = () =>
      generation === this.generation
        ? this.runEngine(conversationId, character.id, userMessage)
        : undefined;
    // No queue: start at once, so the first packet leaves in this turn of the event loop.
    const run = previous ? previous.then(start) : Promise.resolve(start());
    this.queues.set(conversationId, run);
    void run.finally(() => {
      if (this.queues.get(conversationId) === run) this.queues.delete(conversationId);
    });
  }

  private async runEngine(
    conversationId: string,
    characterId: string,
    userMessage: MessageRecord,
  ): Promise<void> {
    // Read the character when its turn comes: an admin PATCH in between applies to the next reply.
    const stored = this.services.db.characters.get(characterId);
    if (!stored)
      return void this.failAtOnce(conversationId, {
        code: 'NOT_FOUND',
        message: `character ${characterId} no longer exists`,
      });
    const character = {
      ...stored,
      packetSize: stored.packetSize ?? this.options.packetSize,
      packetIntervalMs: stored.packetIntervalMs ?? this.options.packetIntervalMs,
    };
    const controller = new AbortController();
    this.controllers.add(controller);
    const reply = this.startReply(conversationId, 'engine');
    try {
      const engine = this.engineFor(character);
      const iterable = engine.reply({
        character,
        history: this.historyBefore(conversationId, userMessage.id),
        userMessage: asChatText(userMessage),
        signal: controller.signal,
      });
      for await (const delta of iterable) {
        if (reply.ended) break;
        if (delta !== '') reply.packet(delta, false);
      }
      if (!reply.ended) reply.packet('', true);
    } catch (error) {
      if (!reply.ended) reply.fail(toFailure(error));
    } finally {
      this.controllers.delete(controller);
    }
  }

  private historyBefore(conversationId: string, messageId: string): ChatTurn[] {
    const turns: ChatTurn[] = [];
    for (const m of this.services.db.messages.where('conversationId', conversationId)) {
      if (m.id === messageId) break;
      if (m.isStreaming || m.error || m.content === '') continue;
      turns.push({ sender: m.sender, content: asChatText(m) });
    }
    return turns.slice(-HISTORY_TURNS);
  }

  /** LiveReplyHost: stores a reply's message as it stands. */
  saveMessage(message: MessageRecord): Promise<void> {
    return saveReplyMessage(this.services, message);
  }
}

function toFailure(error: unknown): ReplyFailure {
  if (error instanceof ReplyEngineError) return { code: error.code, message: error.message };
  return {
    code: 'ENGINE_ERROR',
    message: `the reply engine failed: ${(error as Error)?.message ?? String(error)}`,
  };
}
