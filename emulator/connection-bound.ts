import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { rawErrorAnswer } from './http.js';

/*
 * What one client can hold of a server's sockets. Node times out neither a connection that never sends a byte nor one that stops
 * half-way through its headers (fastify turns the request timeout off), so 1,100 idle sockets under `ulimit -n 1024` locked out
 * health and every API. Each server now closes a connection that has no complete request head within `headersTimeoutMs` (the
 * same between two requests of a kept-alive connection), and holds at most `maxConnections`: past it, the oldest connection with
 * no request under way is closed to make room, so an idle flood cannot lock anyone out; only when every connection is serving a
 * request is the new one refused (503).
 */

/** How long a connection may go without a complete request head, and how many connections a server holds. */
export type ConnectionBound = { headersTimeoutMs: number; maxConnections: number };

/** Most connections a server holds by default: two servers, 512 descriptors, well below the common `ulimit -n 1024`. */
export const MAX_CONNECTIONS = 256;

/**
 * The default connections a server holds: MAX_CONNECTIONS, or a quarter of the process's descriptor limit when that is lower (two
 * servers take half, the store, webhooks and uploads the rest); read from /proc/self/limits, so MAX_CONNECTIONS where there is none.
 */
export function defaultMaxConnections(): number {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return MAX_CONNECTIONS;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  if (soft === undefined) return MAX_CONNECTIONS;
  return Math.max(16, Math.min(MAX_CONNECTIONS, Math.floor(Number(soft) / 4)));
}

/** 15 s for a request head (a person's client sends it at once); connections as `defaultMaxConnections`. */
export const DEFAULT_CONNECTION_BOUND: ConnectionBound = {
  headersTimeoutMs: 15_000,
  maxConnections: defaultMaxConnections(),
};

const TIMEOUT_ANSWER = rawErrorAnswer(
  '408 Request Timeout',
  'REQUEST_TIMEOUT',
  'No complete request head arrived in time: send the request line and headers at once',
);
const FULL_ANSWER = rawErrorAnswer(
  '503 Service Unavailable',
  'SERVER_ERROR',
  'The emulator holds as many connections as it serves at once: close idle ones, or retry shortly',
);

interface Tracked {
  /** Requests of this connection whose answer has not finished. */
  active: number;
  timer: NodeJS.Timeout | undefined;
  /** Bytes read when the connection last became idle: more since then is a request head under way. */
  readAtIdle: number;
}

/** Throws a TypeError naming the first field of `bound` that is not a positive whole number. */
export function checkConnectionBound(bound: Partial<ConnectionBound> = {}): void {
  for (const [name, value] of Object.entries(bound)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
      throw new TypeError(`startEmulator: connections.${name} must be a whole number (1 or more)`);
  }
}

/** Bounds the connections of `server` as described above; returns how many it holds (for tests and the bench). */
export function boundConnections(
  server: Server,
  bound: ConnectionBound = DEFAULT_CONNECTION_BOUND,
): { open(): number } {
  // Insertion order is age: the first idle one found is the oldest.
  const sockets = new Map<Socket, Tracked>();
  // Clients learn when an idle connection closes from `Keep-Alive: timeout=`: advertise no longer than it is kept (fastify says 72 s),
  // or a client may send its next request on a connection this bound is closing.
  server.keepAliveTimeout = Math.min(server.keepAliveTimeout, bound.headersTimeoutMs);

  const close = (socket: Socket) => {
    const tracked = sockets.get(socket);
    if (!tracked) return;
    clearTimeout(tracked.timer);
    sockets.delete(socket);
    const midHead = socket.bytesRead > tracked.readAtIdle;
    if (midHead && socket.writable) {
      socket.end(TIMEOUT_ANSWER);
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  };
  const armIdle = (socket: Socket, tracked: Tracked) => {
    clearTimeout(tracked.timer);
    tracked.readAtIdle = socket.bytesRead;
    tracked.timer = setTimeout(() => close(socket), bound.headersTimeoutMs).unref();
  };

  server.on('connection', (socket: Socket) => {
    if (sockets.size >= bound.maxConnections) {
      let idle: Socket | undefined;
      for (const [candidate, tracked] of sockets) {
        if (tracked.active === 0) {
          idle = candidate;
          break;
        }
      }
      if (!idle) {
        socket.end(FULL_ANSWER);
        setTimeout(() => socket.destroy(), 1000).unref();
        return;
      }
      close(idle);
    }
    const tracked: Tracked = { active: 0, timer: undefined, readAtIdle: 0 };
    sockets.set(socket, tracked);
    armIdle(socket, tracked);
    socket.once('close', () => {
      clearTimeout(tracked.timer);
      sockets.delete(socket);
    });
  });

  // The head is complete when the request is emitted; the connection is idle again once every answer is done.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const tracked = sockets.get(socket);
    if (!tracked) return;
    tracked.active++;
    clearTimeout(tracked.timer);
    tracked.timer = undefined;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      tracked.active--;
      if (tracked.active === 0 && sockets.has(socket) && !socket.destroyed)
        armIdle(socket, tracked);
    };
    response.once('finish', done);
    response.once('close', done);
  });

  return { open: () => sockets.size };
}
