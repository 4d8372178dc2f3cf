import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BUFFERED_BYTES } from '../messaging/conversation-streams.js';

/** How often an admin stream sends a comment so proxies and clients keep it open. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers with a server-sent-events stream: `first`, then what `subscribe` sends (it returns its unsubscribe) and keep-alives;
 * a client more than MAX_BUFFERED_BYTES behind is dropped (it reconnects) instead of growing the emulator's memory without end.
 */
export function openAdminStream(
  request: FastifyRequest,
  reply: FastifyReply,
  first: string,
  subscribe: (send: (frame: string) => void) => () => void,
): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const send = (frame: string) => {
    if (raw.destroyed || raw.writableEnded) return;
    if (raw.writableLength > MAX_BUFFERED_BYTES) return void raw.destroy();
    raw.write(frame);
  };
  send(first);
  const unsubscribe = subscribe(send);
  const keepAlive = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const cleanup = () => {
    clearInterval(keepAlive);
    unsubscribe();
  };
  request.raw.once('close', cleanup);
  raw.once('close', cleanup);
}
