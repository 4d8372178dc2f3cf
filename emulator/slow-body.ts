import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { rawErrorAnswer } from './http.js';

/** How long a request body may take: `graceMs`, plus a second per `minBytesPerSecond` received (mod_reqtimeout's `MinRate`); slower is a 408. */
export type SlowBodyBound = { graceMs: number; minBytesPerSecond: number };

/** 30 s, then 8 KiB/s: slower than any link a person or CI uses (64 kbit/s), and a 1 MB body is cut after at most about 2 minutes. */
export const DEFAULT_SLOW_BODY_BOUND: SlowBodyBound = {
  graceMs: 30_000,
  minBytesPerSecond: 8 * 1024,
};

const WATCHED = Symbol('plugsmith.slowBodyWatched');

const TIMEOUT_ANSWER = rawErrorAnswer(
  '408 Request Timeout',
  'REQUEST_TIMEOUT',
  'The request body arrived too slowly (or stopped): send it whole, at a normal pace',
);

/**
 * Bounds how long every request body of `app` may take (`requestTimeout` would also cut healthy long uploads), comparing bytes read
 * with time. Armed on the server's `request` event (the router may refuse before any hook) and in a hook for inject and the admin app.
 */
export function boundSlowBodies(
  app: FastifyInstance,
  bound: SlowBodyBound = DEFAULT_SLOW_BODY_BOUND,
): void {
  app.server.prependListener('request', (request: IncomingMessage, response: ServerResponse) =>
    watchBody(request, response, bound),
  );
  app.addHook('onRequest', (request, reply, done) => {
    watchBody(request.raw, reply.raw, bound);
    done();
  });
}

function watchBody(
  raw: IncomingMessage & { [WATCHED]?: true },
  response: ServerResponse,
  bound: SlowBodyBound,
): void {
  if (raw.complete) return;
  const length = raw.headers['content-length'];
  if (raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))
    return;
  // Watched by the server already, or by the management app the admin app's requests come through.
  if (raw[WATCHED]) return;
  const socket = raw.socket;
  // An injected request has a stand-in socket: nothing to hold or close, and a timer armed on it would throw.
  if (typeof socket?.destroy !== 'function') return;
  raw[WATCHED] = true;
  const started = Date.now();
  const readBefore = socket.bytesRead;
  const deadline = () =>
    started + bound.graceMs + ((socket.bytesRead - readBefore) / bound.minBytesPerSecond) * 1000;
  let timer: NodeJS.Timeout;
  const check = () => {
    if (raw.complete || socket.destroyed) return;
    const left = deadline() - Date.now();
    if (left > 0) {
      timer = setTimeout(check, left).unref();
      return;
    }
    // An answer already under way cannot become a 408: the connection just goes.
    if (socket.writable && !response.headersSent) {
      socket.end(TIMEOUT_ANSWER);
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  };
  timer = setTimeout(check, bound.graceMs).unref();
  raw.once('close', () => clearTimeout(timer));
}
