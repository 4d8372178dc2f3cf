import { errorForLog } from '../errors.js';
import type { MessageRecord, MessageType } from '../model.js';
import { newId, nowIso } from '../store/ids.js';
import { StoreClosed } from '../store/store.js';
import { sseFrame, type ConversationStreams } from './conversation-streams.js';

/** The client-side event every packet of a character message is sent as. */
export const CHARACTER_MESSAGE_SENT = 'CHARACTER_MESSAGE_SENT';

/** Why a reply ended without its complete text (the message's `error`). */
export type ReplyFailure = NonNullable<MessageRecord['error']>;

/** Who builds a live reply: an engine of the emulator, or a plugin writing packets through the API. */
export type ReplyOrigin = 'engine' | 'plugin';

/** What a live reply needs from the messaging service. */
export interface LiveReplyHost {
  streams: ConversationStreams;
  /** Stores the message as it stands (through conversation-service.ts). */
  saveMessage(message: MessageRecord): Promise<void>;
  /** Called once, when the final packet has been sent. */
  ended(reply: LiveReply): void;
  /** Tells the emulator's log (stderr, or startEmulator's `log`) of a failure no request answers. */
  report(line: string): void;
}

/** The words a failed reply ends with, appended to the text so far so every packet still extends the last. */
export function failureText(soFar: string, failure: ReplyFailure): string {
  return `${soFar === '' ? '' : '\n\n'}[error: ${failure.message}]`;
}

/** One CHARACTER message streamed packet by packet, its content in memory: the store gets it at the first packet and the final one. */
export class LiveReply {
  readonly id = newId('msg');
  private current: MessageRecord | null = null;
  private writes: Promise<void> = Promise.resolve();
  /** Why the store refused a write of this message not yet told to the request that made it (acknowledged()). */
  private refusal: { error: unknown } | null = null;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly host: LiveReplyHost,
    readonly conversationId: string,
    readonly origin: ReplyOrigin,
    private readonly shape: {
      type: MessageType;
      attachments: MessageRecord['attachments'];
      idleTimeoutMs?: number;
    },
  ) {
    this.armIdleTimer();
  }

  /** The message as it stands, or null before the first packet. */
  get message(): MessageRecord | null {
    return this.current;
  }

  get ended(): boolean {
    return this.current?.isStreaming === false;
  }

  /** Resolves when the latest store write (creation, or the final record) is durable, or was refused. */
  persisted(): Promise<void> {
    return this.writes;
  }

  /**
   * For the request that wrote a packet (a plugin's): resolves when its write is durable, and throws the store's
   * refusal when it was refused (a full disk: the route answers 507), so that no packet is acknowledged unstored.
   */
  async acknowledged(): Promise<void> {
    await this.writes;
    const refusal = this.refusal;
    this.refusal = null;
    if (refusal) throw refusal.error;
  }

  /** Sends one packet: `delta` is appended to the content; `final` ends the message. */
  packet(delta: string, final: boolean, failure?: ReplyFailure): MessageRecord {
    if (this.ended) throw new Error(`message ${this.id} has already ended`);
    const now = nowIso();
    const previous = this.current;
    const message: MessageRecord = previous
      ? { ...previous, content: previous.content + delta, isStreaming: !final, updatedAt: now }
      : {
          id: this.id,
          conversationId: this.conversationId,
          sender: 'CHARACTER',
          type: this.shape.type,
          content: delta,
          attachments: this.shape.attachments,
          isStreaming: !final,
          createdAt: now,
          updatedAt: now,
        };
    if (failure) message.error = failure;
    this.current = message;
    if (!previous || final) this.persist(message);
    if (final) {
      clearTimeout(this.idleTimer);
      this.host.ended(this);
    } else {
      this.armIdleTimer();
    }
    this.host.streams.broadcast(
      this.conversationId,
      sseFrame(CHARACTER_MESSAGE_SENT, { message, contentDelta: delta }),
    );
    return message;
  }

  /** Ends the message with an explanation of the failure appended, as its final packet. */
  fail(failure: ReplyFailure): MessageRecord {
    return this.packet(failureText(this.current?.content ?? '', failure), true, failure);
  }

  /** The catch-up event for a client that connects mid-reply: the content so far as one delta. */
  catchUpFrame(): string | null {
    if (!this.current || this.ended) return null;
    return sseFrame(CHARACTER_MESSAGE_SENT, {
      message: this.current,
      contentDelta: this.current.content,
    });
  }

  private persist(message: MessageRecord): void {
    const write = this.host
      .saveMessage(message)
      .catch((error: unknown) => this.writeRefused(message, error));
    this.writes = Promise.all([this.writes, write]).then(() => undefined);
  }

  /**
   * A write of the message was refused. The store closing under a reply (shutdown) is expected: the next start marks the
   * reply interrupted. Anything else (a full disk, a bug) is told in the log; and since a refused final record leaves the
   * message streaming in the store, its end is stored once more with the failure on it, as a delivery's failed attempt is.
   */
  private async writeRefused(message: MessageRecord, error: unknown): Promise<void> {
    if (error instanceof StoreClosed) return;
    this.refusal = { error };
    this.host.report(
      `plugsmith emulator: reply message ${this.id} of conversation ${this.conversationId} could not be stored: ${errorForLog(error)}`,
    );
    // A packet before the last: the final record, written later, holds the whole message.
    if (message.isStreaming) return;
    const failure: ReplyFailure = {
      code: 'NOT_STORED',
      message: "the emulator could not store the end of this reply (the emulator's log says why)",
    };
    const traced: MessageRecord = {
      ...message,
      content: message.content + failureText(message.content, failure),
      error: failure,
      updatedAt: nowIso(),
    };
    try {
      await this.host.saveMessage(traced);
    } catch (again) {
      if (again instanceof StoreClosed) return;
      this.host.report(
        `plugsmith emulator: reply message ${this.id} keeps what the store last had of it (streaming, it is ended INTERRUPTED at the next start): its end could not be stored either: ${again instanceof Error ? again.message : String(again)}`,
      );
    }
  }

  private armIdleTimer(): void {
    const ms = this.shape.idleTimeoutMs;
    if (!ms) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.ended) return;
      this.fail({
        code: 'TIMEOUT',
        message: `no packet was written into this message for ${Math.round(ms / 1000)} s, so the emulator ended it`,
      });
    }, ms).unref();
  }
}
