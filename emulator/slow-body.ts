import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { rawErrorAnswer, UnauthenticatedBodyRefusal } from './http.js';

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
  request: IncomingMessage,
  response: ServerResponse,
  bound: SlowBodyBound,
  watched: symbol = WATCHED,
): void {
  const raw = request as IncomingMessage & Record<symbol, unknown>;
  if (raw.complete) return;
  const length = raw.headers['content-length'];
  if (raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))
    return;
  // Watched by the server already, or by the management app the admin app's requests come through.
  if (raw[watched]) return;
  const socket = raw.socket;
  // An injected request has a stand-in socket: nothing to hold or close, and a timer armed on it would throw.
  if (typeof socket?.destroy !== 'function') return;
  raw[watched] = true;
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

/*
 * Bodies from callers no guard has recognised (issue 41: 260 connections trickling 1 MB bodies at 9 KB/s to the dashboard's
 * sign-in, which needs no credential, held every connection slot and health answered 503 for 45 s). A request whose body is about
 * to be read without a recognised credential (a token, an API key, the admin credential or a dashboard session) is a stranger's:
 * its body may be at most `maxBytes`, must arrive within `graceMs` plus a second per `minBytesPerSecond`, and it holds one of the
 * connections strangers may hold (connection-bound.ts keeps a reserve for everyone else). Refusals close the connection undrained.
 */

/** A stranger's body: at most `maxBytes`, within `graceMs` plus a second per `minBytesPerSecond` received. */
export type UnauthenticatedBodyBound = {
  maxBytes: number;
  graceMs: number;
  minBytesPerSecond: number;
};

/** 16 KiB (a dashboard sign-in is about 50 bytes), within 2 s plus a second per 2 KiB: the largest allowed body within 10 s. */
export const DEFAULT_UNAUTHENTICATED_BODY_BOUND: UnauthenticatedBodyBound = {
  maxBytes: 16 * 1024,
  graceMs: 2_000,
  minBytesPerSecond: 2 * 1024,
};

const AUTHENTICATED = Symbol('plugsmith.authenticated');
const STRANGER_WATCHED = Symbol('plugsmith.strangerBodyWatched');

/** Marks a request whose credential a guard recognised (its body is bounded as everyone's, not as a stranger's). */
export function markAuthenticated(raw: IncomingMessage): void {
  (raw as IncomingMessage & { [AUTHENTICATED]?: true })[AUTHENTICATED] = true;
}

/** Route config of a route that checks its own credential (a signed URL) before it reads a byte of its body itself. */
export type OwnBodyGuardConfig = { guardsOwnBody?: boolean };

/**
 * Bounds the bodies of requests no guard recognised, as described above. `admit` claims one of the connections strangers may hold
 * for the request (false when they hold all theirs); it is released when the answer ends.
 */
export function boundUnauthenticatedBodies(
  app: FastifyInstance,
  bound: UnauthenticatedBodyBound,
  admit: (raw: IncomingMessage, response: ServerResponse) => boolean,
): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    const raw = request.raw as IncomingMessage & { [AUTHENTICATED]?: true };
    const config = request.routeOptions.config as OwnBodyGuardConfig | undefined;
    // /api's guard sets the principal, the messaging API's the API key, the admin guard marks the request.
    const recognised =
      raw[AUTHENTICATED] === true ||
      request.principal != null ||
      request.apiKey != null ||
      config?.guardsOwnBody === true;
    if (recognised || !hasBody(raw)) return done(null, payload);
    // Node reads exactly the declared length as the body; a stranger's chunked body (no length) is refused like a long one.
    const declared = Number(raw.headers['content-length'] ?? Number.NaN);
    if (!(declared <= bound.maxBytes))
      return done(new UnauthenticatedBodyRefusal(413, tooLargeMessage(bound)), payload);
    if (!admit(raw, reply.raw))
      return done(
        new UnauthenticatedBodyRefusal(
          503,
          'The emulator is reading as many request bodies from callers without a credential as it allows at once: retry shortly, or send your credential',
        ),
        payload,
      );
    watchBody(raw, reply.raw, bound, STRANGER_WATCHED);
    done(null, payload);
  });
}

function tooLargeMessage(bound: UnauthenticatedBodyBound): string {
  return `The request body is larger than ${bound.maxBytes} bytes, the most the emulator reads from a caller without a credential (with a Content-Length): send the request with its credential (a token, an API key or the admin credential), or check the URL`;
}

function hasBody(raw: IncomingMessage): boolean {
  if (raw.complete) return false;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
