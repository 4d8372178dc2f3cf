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
 *
 * Requests whose bodies are read without a recognised credential (slow-body.ts) may hold at most `maxConnections -
 * reservedConnections` connections together (issue 41: 260 trickled sign-in bodies held every slot, health answered 503 to every
 * probe for 45 s). The reserve is left to health, to callers with a credential and to new connections, which an idle connection
 * makes room for as before; a stranger's body past the strangers' share is refused with a 503 before it is read.
 */

/** How long a connection may go without a complete request head, how many connections a server holds, and how many of them strangers' bodies never take. */
export type ConnectionBound = {
  headersTimeoutMs: number;
  maxConnections: number;
  /** Default: a quarter of maxConnections (at least 1, at most maxConnections - 1). */
  reservedConnections?: number;
};

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

/** Throws a TypeError naming the first field of `bound` that is not a positive whole number (or a reserve that leaves strangers nothing). */
export function checkConnectionBound(bound: Partial<ConnectionBound> = {}): void {
  for (const [name, value] of Object.entries(bound)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1))
      throw new TypeError(`startEmulator: connections.${name} must be a whole number (1 or more)`);
  }
  const max = bound.maxConnections ?? DEFAULT_CONNECTION_BOUND.maxConnections;
  if (bound.reservedConnections !== undefined && bound.reservedConnections >= max)
    throw new TypeError(
      `startEmulator: connections.reservedConnections must be below maxConnections (${max})`,
    );
}

/** The connections strangers' bodies may hold together: maxConnections less the reserve. */
export function strangersShare(bound: ConnectionBound): number {
  const reserve = bound.reservedConnections ?? Math.floor(bound.maxConnections / 4);
  return Math.max(
    1,
    bound.maxConnections - Math.min(Math.max(reserve, 1), bound.maxConnections - 1),
  );
}

/** What a server's bound decides for the requests of one of its connections. */
type SocketBound = { admitStranger: (socket: Socket, response: ServerResponse) => boolean };
/** The bound of each tracked connection: the admin app serves the management server's requests, so it finds the bound by socket. */
const boundOfSocket = new WeakMap<Socket, SocketBound>();

/**
 * Claims one of the strangers' connections for a request about to read a body without a recognised credential, until its answer
 * ends; false when strangers hold their whole share. A request without a tracked connection (inject()) is admitted.
 */
export function admitUnauthenticatedBody(
  request: IncomingMessage,
  response: ServerResponse,
): boolean {
  const socket = request.socket;
  const bound = socket ? boundOfSocket.get(socket) : undefined;
  return bound ? bound.admitStranger(socket, response) : true;
}

/** Bounds the connections of `server` as described above; returns how many it holds (for tests and the bench). */
export function boundConnections(
  server: Server,
  bound: ConnectionBound = DEFAULT_CONNECTION_BOUND,
): { open(): number; strangers(): number } {
  // Insertion order is age: the first idle one found is the oldest.
  const sockets = new Map<Socket, Tracked>();
  const share = strangersShare(bound);
  let strangers = 0;
  const admitStranger = (socket: Socket, response: ServerResponse): boolean => {
    const tracked = sockets.get(socket);
    if (!tracked) return true;
    if (strangers >= share) return false;
    strangers++;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      strangers--;
    };
    response.once('finish', done);
    response.once('close', done);
    return true;
  };
  const socketBound: SocketBound = { admitStranger };
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
      // An answered connection still closing (a refused stranger's) goes first, then the oldest idle one.
      let idle: Socket | undefined;
      for (const [candidate, tracked] of sockets) {
        if (candidate.writableEnded) {
          idle = candidate;
          break;
        }
        if (tracked.active === 0 && idle === undefined) idle = candidate;
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
    boundOfSocket.set(socket, socketBound);
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

  return { open: () => sockets.size, strangers: () => strangers };
}
