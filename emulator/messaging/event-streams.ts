import type { ServerResponse } from 'node:http';

/** How often an idle event stream gets a `: keep-alive` comment, so proxies and clients keep it open. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * Unsent bytes a client may fall behind by before it is dropped; a client that cannot keep
 * up reconnects and gets the streaming message so far, instead of growing memory without end.
 */
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** One server-sent-events frame with a JSON `data` line. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The open `GET /conversations/:id/events` streams, by conversation. Frames are written as
 * they are, once serialized, to every client; one timer sends keep-alives to all of them.
 */
export class EventStreams {
  private readonly byConversation = new Map<string, Set<ServerResponse>>();
  /** The API key each stream was opened with, so revoking the key ends its streams. */
  private readonly apiKeyOf = new Map<ServerResponse, string>();
  private readonly keepAlive: NodeJS.Timeout;
  private readonly corked = new Set<string>();

  constructor(keepAliveMs = DEFAULT_KEEP_ALIVE_MS) {
    this.keepAlive = setInterval(() => this.broadcastAll(': keep-alive\n\n'), keepAliveMs);
    this.keepAlive.unref();
  }

  /**
   * Starts an event stream on a raw response (the route has hijacked it) and registers it.
   * `catchUp` frames go first, in the same turn as the registration, so no packet falls between.
   */
  open(conversationId: string, response: ServerResponse, catchUp: string[], apiKeyId?: string): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.socket?.setNoDelay(true);
    response.write(': connected\n\n' + catchUp.join(''));
    let clients = this.byConversation.get(conversationId);
    if (!clients) this.byConversation.set(conversationId, (clients = new Set()));
    clients.add(response);
    if (apiKeyId !== undefined) this.apiKeyOf.set(response, apiKeyId);
    response.once('close', () => this.remove(conversationId, response));
  }

  /** Ends the streams opened with an API key (it was revoked); returns how many. */
  closeForApiKey(apiKeyId: string): number {
    let closed = 0;
    for (const [response, keyId] of this.apiKeyOf) {
      if (keyId !== apiKeyId) continue;
      this.apiKeyOf.delete(response);
      response.end();
      closed++;
    }
    return closed;
  }

  /**
   * Writes a frame to every client of a conversation. Sockets stay corked until the current
   * burst of packets is over (next tick), so back-to-back packets leave in one write per client.
   */
  broadcast(conversationId: string, frame: string): void {
    const clients = this.byConversation.get(conversationId);
    if (!clients) return;
    if (!this.corked.has(conversationId)) {
      this.corked.add(conversationId);
      for (const response of clients) response.cork();
      process.nextTick(() => {
        this.corked.delete(conversationId);
        for (const response of this.byConversation.get(conversationId) ?? []) response.uncork();
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

  /** Ends every stream (emulator shutdown or reset); clients see a normal end of stream. */
  closeAll(): void {
    for (const clients of this.byConversation.values()) for (const response of clients) response.end();
    this.byConversation.clear();
    this.apiKeyOf.clear();
  }

  /** Ends every stream and stops the keep-alive timer. */
  close(): void {
    clearInterval(this.keepAlive);
    this.closeAll();
  }

  private broadcastAll(frame: string): void {
    for (const clients of this.byConversation.values()) for (const response of clients) this.write(response, frame);
  }

  private write(response: ServerResponse, frame: string | Buffer): void {
    if (response.destroyed || response.writableEnded) return; // gone; its 'close' removes it
    if (response.writableLength > MAX_BUFFERED_BYTES) {
      response.destroy();
      return;
    }
    response.write(frame);
  }

  private remove(conversationId: string, response: ServerResponse): void {
    this.apiKeyOf.delete(response);
    const clients = this.byConversation.get(conversationId);
    if (!clients) return;
    clients.delete(response);
    if (clients.size === 0) this.byConversation.delete(conversationId);
  }
}
