import type { ServerResponse } from 'node:http';

/** How often an idle stream gets a `: keep-alive` comment, so proxies and clients keep it open. */
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Unsent bytes a client may fall behind by before it is dropped (it reconnects and catches up), so memory cannot grow without end. */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Unsent bytes held for slow readers of conversation streams; past a bound, those furthest behind are dropped until the rest fit. */
export interface StreamBufferLimits {
  /** One stream; default 16 MiB. */
  perStream?: number;
  /** The streams opened with one API key, together; default 32 MiB. */
  perApiKey?: number;
  /** Every conversation stream of the emulator, together; default 64 MiB. */
  total?: number;
}

/** One server-sent-events frame with a JSON `data` line. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Throws a TypeError naming the first bound of `limits` that is not a whole number of bytes. */
export function checkStreamBufferLimits(limits: StreamBufferLimits = {}): void {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0))
      throw new TypeError(
        `startEmulator: messaging.streamBuffers.${name} must be a whole number of bytes (0 or more)`,
      );
  }
}

/** The open conversation streams, unread bytes within StreamBufferLimits; a dropped one is destroyed (an end would queue behind the unread). */
export class ConversationStreams {
  private readonly byConversation = new Map<string, Set<ServerResponse>>();
  /** The API key each stream was opened with, so revoking the key ends its streams. */
  private readonly apiKeyOf = new Map<ServerResponse, string>();
  private readonly keepAlive: NodeJS.Timeout;
  private readonly corked = new Set<string>();
  private readonly limits: Required<StreamBufferLimits>;
  private droppedCount = 0;

  constructor(keepAliveMs = DEFAULT_KEEP_ALIVE_MS, limits: StreamBufferLimits = {}) {
    this.limits = {
      perStream: limits.perStream ?? MAX_BUFFERED_BYTES,
      perApiKey: limits.perApiKey ?? 2 * MAX_BUFFERED_BYTES,
      total: limits.total ?? 4 * MAX_BUFFERED_BYTES,
    };
    checkStreamBufferLimits(this.limits);
    this.keepAlive = setInterval(() => this.broadcastAll(': keep-alive\n\n'), keepAliveMs).unref();
  }

  /** Starts a conversation stream on a hijacked response; `catchUp` frames go in the registration's turn, so no packet falls between. */
  open(
    conversationId: string,
    response: ServerResponse,
    catchUp: string[],
    apiKeyId?: string,
  ): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.socket?.setNoDelay(true);
    response.write(': connected\n\n' + catchUp.join(''));
    let clients = this.byConversation.get(conversationId);
    if (!clients) {
      clients = new Set();
      this.byConversation.set(conversationId, clients);
    }
    clients.add(response);
    if (apiKeyId !== undefined) this.apiKeyOf.set(response, apiKeyId);
    response.once('close', () => this.remove(conversationId, response));
    if (response.writableLength > 0) this.enforceLimits();
  }

  /** Ends the streams opened with an API key (it was revoked). */
  closeForApiKey(apiKeyId: string): void {
    for (const [response, keyId] of this.apiKeyOf) {
      if (keyId !== apiKeyId) continue;
      this.apiKeyOf.delete(response);
      response.end();
    }
  }

  /** Writes a frame to a conversation's clients, corked until the burst is over (next tick): one write per client per burst. */
  broadcast(conversationId: string, frame: string): void {
    const clients = this.byConversation.get(conversationId);
    if (!clients) return;
    if (!this.corked.has(conversationId)) {
      this.corked.add(conversationId);
      for (const response of clients) response.cork();
      process.nextTick(() => {
        this.corked.delete(conversationId);
        // Uncorked, a reading client's frames go to its socket at once; only what stays unsent counts.
        const current = this.byConversation.get(conversationId) ?? [];
        for (const response of current) response.uncork();
        this.enforceIfBehind(current);
      });
    }
    // Encoded once for every client: a packet carries the whole text so far, so frames get long.
    const bytes = clients.size > 1 ? Buffer.from(frame, 'utf8') : frame;
    for (const response of clients) this.write(response, bytes);
  }

  /** Number of clients following a conversation. */
  count(conversationId: string): number {
    return this.byConversation.get(conversationId)?.size ?? 0;
  }

  /** What the streams of a conversation hold unsent for their clients, in bytes. */
  heldFor(conversationId: string): number {
    let held = 0;
    for (const response of this.byConversation.get(conversationId) ?? [])
      held += response.writableLength;
    return held;
  }

  /** The bytes all streams hold unsent for their clients, and how many streams were dropped so far for falling behind. */
  buffered(): { total: number; dropped: number } {
    let total = 0;
    for (const response of this.all()) total += response.writableLength;
    return { total, dropped: this.droppedCount };
  }

  /** Ends every stream (emulator shutdown or reset); clients see a normal end of stream. */
  closeAll(): void {
    for (const clients of this.byConversation.values())
      for (const response of clients) response.end();
    this.byConversation.clear();
    this.apiKeyOf.clear();
  }

  /** Ends every stream and stops the keep-alive timer. */
  close(): void {
    clearInterval(this.keepAlive);
    this.closeAll();
  }

  private broadcastAll(frame: string): void {
    for (const response of this.all()) this.write(response, frame);
    this.enforceIfBehind(this.all());
  }

  /** Enforces the bounds once any of `responses` holds unsent bytes. */
  private enforceIfBehind(responses: Iterable<ServerResponse>): void {
    for (const response of responses) {
      if (response.writableLength > 0) {
        this.enforceLimits();
        return;
      }
    }
  }

  private *all(): Iterable<ServerResponse> {
    for (const clients of this.byConversation.values()) yield* clients;
  }

  private write(response: ServerResponse, frame: string | Buffer): void {
    if (response.destroyed || response.writableEnded) return; // gone; its 'close' removes it
    if (response.writableLength > this.limits.perStream) {
      this.drop(response);
      return;
    }
    response.write(frame);
  }

  /** Drops the streams furthest behind until every stream, every API key and the total hold no more than their bounds. */
  private enforceLimits(): void {
    const { perStream, perApiKey, total: totalLimit } = this.limits;
    const held: Array<[ServerResponse, number]> = [];
    const byKey = new Map<string, number>();
    let total = 0;
    for (const response of this.all()) {
      if (response.destroyed) continue;
      const bytes = response.writableLength;
      if (bytes === 0) continue;
      held.push([response, bytes]);
      total += bytes;
      const key = this.apiKeyOf.get(response);
      if (key !== undefined) byKey.set(key, (byKey.get(key) ?? 0) + bytes);
    }
    const keyOver = () => [...byKey.values()].some((bytes) => bytes > perApiKey);
    if (total <= totalLimit && held.every(([, bytes]) => bytes <= perStream) && !keyOver()) return;
    held.sort((a, b) => b[1] - a[1]);
    for (const [response, bytes] of held) {
      const key = this.apiKeyOf.get(response);
      const keyBytes = key === undefined ? 0 : (byKey.get(key) ?? 0);
      if (total <= totalLimit && bytes <= perStream && keyBytes <= perApiKey) continue;
      this.drop(response);
      total -= bytes;
      if (key !== undefined) byKey.set(key, keyBytes - bytes);
    }
  }

  /** Closes the connection of a client that fell too far behind, freeing what it held. */
  private drop(response: ServerResponse): void {
    this.droppedCount++;
    response.destroy();
  }

  private remove(conversationId: string, response: ServerResponse): void {
    this.apiKeyOf.delete(response);
    const clients = this.byConversation.get(conversationId);
    if (!clients) return;
    clients.delete(response);
    if (clients.size === 0) this.byConversation.delete(conversationId);
  }
}
