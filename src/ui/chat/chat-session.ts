import { setTimeout as wait } from 'node:timers/promises';
import {
  isApiError,
  isCharacterMessageSent,
  isNetworkError,
  collect,
  type Attachment,
  type Conversation,
  type Message,
  type PlatformClient,
} from '../../client/index.js';

/** What a chat shows, in order; the message kinds are also the NDJSON lines of `plugsmith chat --json`. */
export type ChatUpdate =
  | { type: 'CONVERSATION_STARTED'; conversation: Conversation; messages: Message[] }
  | { type: 'USER_MESSAGE_SENT'; message: Message }
  | { type: 'CHARACTER_MESSAGE_SENT'; message: Message; contentDelta: string }
  | { type: 'NOTICE'; level: 'info' | 'warning' | 'error'; text: string };

/** Timings of a chat session; the defaults suit people, tests shorten them. */
export interface ChatSessionOptions {
  /** Start this conversation again instead of creating one. */
  conversationId?: string;
  /** How often to poll for the reply once the conversation stream is given up. */
  pollIntervalMs?: number;
  /** First wait before reconnecting a dropped stream (doubles, up to 5 s). */
  reconnectDelayMs?: number;
}

/** The part of the client a chat uses. */
export type ChatClient = Pick<PlatformClient, 'messaging'>;

/** Raised by `send` when the session is closed while a reply is awaited. */
export class ChatClosedError extends Error {
  override readonly name = 'ChatClosedError';
}

interface Waiting {
  /** The user message the reply answers (known once the POST returns). */
  afterId?: string;
  replyId?: string;
  lastActivity: number;
  resolve: (reply: Message) => void;
}

const MAX_RECONNECT_DELAY_MS = 5_000;
/** A stream that stayed open this long counts as healthy again. */
const HEALTHY_STREAM_MS = 5_000;
/** While a reply is awaited on the stream, a quiet stream this long is checked by one poll. */
const IDLE_CHECK_MS = 1_000;
/** Failed reconnections in a row after which the session polls instead. */
const MAX_RECONNECTS = 3;
/** How long `send` waits for the conversation stream to be open, so that it sees every packet of the reply. */
const CONNECT_WAIT_MS = 2_000;

/** One conversation with a character: sends messages, follows replies as they grow over the conversation stream (reconnecting) or by polling. */
export class ChatSession {
  conversation: Conversation | undefined;
  /** The conversation's messages, oldest first, as they stand. */
  readonly messages: Message[] = [];
  /** 'stream' while the conversation stream is used, 'poll' once it was given up. */
  mode: 'stream' | 'poll' = 'stream';

  private readonly listeners = new Set<(update: ChatUpdate) => void>();
  private readonly options: Required<Omit<ChatSessionOptions, 'conversationId'>> & {
    conversationId?: string;
  };
  private follower: AbortController | undefined;
  private waiting: Waiting | undefined;
  /** Packets that arrive while the user message is being posted wait here, so it is shown first. */
  private held: Message[] | undefined;
  private readonly closing = new AbortController();
  /** True while the conversation stream is open (the server has subscribed this session). */
  private streamOpen = false;
  private readonly openWaiters = new Set<() => void>();

  constructor(
    private readonly client: ChatClient,
    readonly characterId: string | undefined,
    options: ChatSessionOptions = {},
  ) {
    this.options = { pollIntervalMs: 300, reconnectDelayMs: 500, ...options };
  }

  /** Listens to the session's updates; returns the function that stops listening. */
  on(listener: (update: ChatUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The conversation open, else the one asked for (`--conversation`): what a 404 is about. */
  get conversationId(): string | undefined {
    return this.conversation?.id ?? this.options.conversationId;
  }

  /** True while a reply is awaited. */
  get busy(): boolean {
    return this.waiting !== undefined;
  }

  /** Opens the conversation (`--conversation`, else a new one), loads its messages and follows its stream. */
  async start(): Promise<Conversation> {
    const id = this.options.conversationId;
    if (id === undefined) return this.newConversation();
    const conversation = await this.client.messaging.conversations.get(id);
    if (
      this.characterId !== undefined &&
      conversation.characterId !== undefined &&
      conversation.characterId !== this.characterId
    ) {
      throw new ConversationMismatch(id, conversation.characterId, this.characterId);
    }
    this.open(
      conversation,
      await collect((query) => this.client.messaging.messages.list(id, query), { limit: 100 }),
    );
    return conversation;
  }

  /** Starts a new conversation with the same character and follows it instead. */
  async newConversation(): Promise<Conversation> {
    const characterId = this.characterId ?? this.conversation?.characterId;
    if (characterId === undefined) throw new Error('a new conversation needs a character id');
    const conversation = await this.client.messaging.conversations.create({ characterId });
    this.open(conversation, []);
    return conversation;
  }

  /** Sends a message and resolves with the character's complete reply; packets go to listeners as they come. */
  async send(content: string, attachments: Attachment[] = []): Promise<Message> {
    const conversation = this.conversation;
    if (!conversation) throw new Error('no conversation: start() first');
    if (this.waiting) throw new Error('a reply is still awaited');
    const done = new Promise<Message>((resolve) => {
      this.waiting = { lastActivity: Date.now(), resolve };
    });
    // A short reply could be over before a just-opened stream is subscribed, and come as one polled message.
    await this.streamReady();
    // The reply can start streaming before the POST answers: hold its packets until then.
    const held: Message[] = [];
    this.held = held;
    const body = attachments.length > 0 ? { content, attachments } : { content };
    try {
      const sent = await this.client.messaging.messages
        .send(conversation.id, body)
        .finally(() => (this.held = undefined));
      this.waiting!.afterId = sent.id;
      this.accept(sent);
      for (const message of held) this.accept(message);
      return await this.await(done);
    } finally {
      this.waiting = undefined;
    }
  }

  /** Stops following the stream and ends any wait; the session cannot be used afterwards. */
  close(): void {
    this.closing.abort();
    this.follower?.abort();
    this.setStreamOpen(false);
  }

  /** Resolves when the conversation stream is open, the session polls instead, or `CONNECT_WAIT_MS` passed. */
  private async streamReady(): Promise<void> {
    if (this.streamOpen || this.mode === 'poll' || this.closing.signal.aborted) return;
    const opened = new Promise<void>((resolve) => this.openWaiters.add(resolve));
    await Promise.race([opened, sleep(CONNECT_WAIT_MS, this.closing.signal)]);
  }

  private setStreamOpen(open: boolean): void {
    this.streamOpen = open;
    if (!open && this.mode !== 'poll' && !this.closing.signal.aborted) return;
    for (const release of this.openWaiters) release();
    this.openWaiters.clear();
  }

  private open(conversation: Conversation, messages: Message[]): void {
    this.follower?.abort();
    this.streamOpen = false;
    this.conversation = conversation;
    this.messages.length = 0;
    this.messages.push(...messages);
    this.emit({ type: 'CONVERSATION_STARTED', conversation, messages: [...messages] });
    if (this.mode === 'stream') {
      this.follower = new AbortController();
      void this.follow(conversation.id, this.follower.signal);
    }
  }

  /** Waits for the reply, polling when the stream is given up or has been quiet for a while. */
  private async await(done: Promise<Message>): Promise<Message> {
    let pollFailures = 0;
    for (;;) {
      const waiting = this.waiting!;
      const interval =
        this.mode === 'poll'
          ? this.options.pollIntervalMs
          : Math.min(IDLE_CHECK_MS, this.options.pollIntervalMs);
      const reply = await Promise.race([done, sleep(interval, this.closing.signal)]);
      if (reply) return reply;
      if (this.closing.signal.aborted)
        throw new ChatClosedError('the chat was closed before the reply was complete');
      const quiet = Date.now() - waiting.lastActivity >= IDLE_CHECK_MS;
      if (this.mode !== 'poll' && !quiet) continue;
      try {
        const page = await this.client.messaging.messages.list(this.conversation!.id, {
          after: waiting.afterId,
          limit: 100,
        });
        for (const message of page.data) this.accept(message);
        pollFailures = 0;
      } catch (error) {
        if (this.closing.signal.aborted)
          throw new ChatClosedError('the chat was closed before the reply was complete');
        if (!isNetworkError(error)) throw error;
        // An unreachable server may come back: say so once, then keep trying.
        if (pollFailures++ === 0)
          this.notice(
            'warning',
            `cannot reach the messaging API (${error.message}); still trying…`,
          );
      }
      waiting.lastActivity = Date.now();
    }
  }

  /** Follows the conversation stream until closed; reconnects when it drops, polls when it cannot be had. */
  private async follow(conversationId: string, signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      const openedAt = Date.now();
      let problem = 'the conversation stream ended';
      try {
        const onOpen = () => {
          if (!signal.aborted) this.setStreamOpen(true);
        };
        for await (const event of this.client.messaging.events(conversationId, {
          signal,
          onOpen,
        })) {
          failures = 0;
          if (isCharacterMessageSent(event)) this.accept(event.data.message);
        }
      } catch (error) {
        // The server answered but will not stream (no such endpoint, refused key…): poll.
        if (isApiError(error) && !signal.aborted) {
          return this.giveUpStream(
            `the conversation stream is unavailable (HTTP ${error.status}${error.status === 401 ? ': the API key was refused, run `plugsmith login`' : ''})`,
          );
        }
        problem = `the conversation stream dropped (${(error as Error).message})`;
      }
      if (signal.aborted) return;
      this.setStreamOpen(false);
      if (Date.now() - openedAt >= HEALTHY_STREAM_MS) failures = 0;
      failures++;
      if (failures > MAX_RECONNECTS)
        return this.giveUpStream(`${problem} and reconnecting failed ${MAX_RECONNECTS} times`);
      this.notice('warning', `${problem}; reconnecting…`);
      const delay = Math.min(
        MAX_RECONNECT_DELAY_MS,
        this.options.reconnectDelayMs * 2 ** (failures - 1),
      );
      await sleep(delay, signal);
      // Packets may have been missed meanwhile: the next wait checks by polling straight away.
      if (this.waiting) this.waiting.lastActivity = 0;
    }
  }

  private giveUpStream(why: string): void {
    this.mode = 'poll';
    this.setStreamOpen(false);
    this.notice(
      'warning',
      `${why}; polling for replies every ${this.options.pollIntervalMs} ms instead`,
    );
  }

  /** Takes in a message from a packet or a listing: listeners get what is new since it was last shown. */
  private accept(message: Message): void {
    if (this.closing.signal.aborted) return;
    if (message.conversationId !== undefined && message.conversationId !== this.conversation?.id)
      return;
    if (this.held && message.sender !== 'USER') {
      this.held.push(message);
      return;
    }
    const index = this.messages.findIndex((m) => m.id === message.id);
    const known = index >= 0 ? this.messages[index] : undefined;
    const shown = known?.content ?? '';
    if (known) {
      // A finished message does not change again; an older state (a slow poll) is not news.
      if (known.isStreaming === false) return;
      if (message.isStreaming !== false && message.content.length <= shown.length) return;
    }
    const contentDelta = message.content.startsWith(shown)
      ? message.content.slice(shown.length)
      : message.content;
    if (known) this.messages[index] = message;
    else this.messages.push(message);
    if (message.sender === 'USER') {
      if (!known) this.emit({ type: 'USER_MESSAGE_SENT', message });
      return;
    }
    this.emit({ type: 'CHARACTER_MESSAGE_SENT', message, contentDelta });
    const waiting = this.waiting;
    if (!waiting || waiting.afterId === undefined) return;
    waiting.replyId ??= message.id;
    if (waiting.replyId !== message.id) return;
    waiting.lastActivity = Date.now();
    if (message.isStreaming === false) waiting.resolve(message);
  }

  private notice(level: 'info' | 'warning' | 'error', text: string): void {
    this.emit({ type: 'NOTICE', level, text });
  }

  private emit(update: ChatUpdate): void {
    for (const listener of this.listeners) listener(update);
  }
}

/** `--conversation` names a conversation with another character than the one given. */
export class ConversationMismatch extends Error {
  override readonly name = 'ConversationMismatch';
  constructor(conversationId: string, actualCharacterId: string, requestedCharacterId: string) {
    super(
      `conversation ${conversationId} is with ${actualCharacterId}, not ${requestedCharacterId}: leave out the character id, or --conversation`,
    );
  }
}

/** Resolves (with undefined) after `ms`, or at once when `signal` aborts (and clears its timer). */
function sleep(ms: number, signal: AbortSignal): Promise<undefined> {
  return wait(ms, undefined, { signal }).catch(() => undefined);
}
