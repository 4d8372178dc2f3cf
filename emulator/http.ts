import type { IncomingMessage } from 'node:http';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
} from 'fastify';
import { HttpError, ERROR_STATUS, type ErrorDetail, type ErrorType } from './errors.js';
import { ERROR_TYPE_BY_STATUS, EXTENSION, MAX_ERROR_DETAILS } from '#contract';
import { fromAjv } from './validation/json-schema.js';
import { useBoundedFormats } from './validation/formats.js';

/** The success envelope. */
export function ok<T>(data: T): { ok: true; data: T };
export function ok<T, M extends Record<string, unknown>>(
  data: T,
  meta: M,
): { ok: true; data: T; meta: M };
export function ok<T>(
  data: T,
  meta?: Record<string, unknown>,
): { ok: true; data: T; meta?: Record<string, unknown> } {
  return meta === undefined ? { ok: true, data } : { ok: true, data, meta };
}

/** The first MAX_ERROR_DETAILS details, then (when there were more) one entry saying how many were left out. */
function capDetails(details: ErrorDetail[]): ErrorDetail[] {
  if (details.length <= MAX_ERROR_DETAILS) return details;
  const rest = details.length - MAX_ERROR_DETAILS;
  return [
    ...details.slice(0, MAX_ERROR_DETAILS),
    {
      code: 'more_details',
      expected: `at most ${MAX_ERROR_DETAILS} details`,
      received: `${rest} more`,
      path: [],
      message: `${rest} more problem${rest === 1 ? '' : 's'} not listed; fix these and send again`,
    },
  ];
}

/** fastify's ajv: every problem reported, nothing coerced or stripped, formats in bounded time (`onCreate` replaces ajv-formats' string formats), route schemas trusted as written. */
export const AJV_OPTIONS = {
  customOptions: {
    allErrors: true,
    verbose: true,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: true,
    // Route schemas are this repository's constants, checked against the JSON Schema meta-schema by
    // test/emulator/schema-compilers.test.ts; checking them at run time compiled the meta-schema at a
    // process's first request (~40 ms of it). Budget: a first request within 0.25x Miniflare's (bench/miniflare.js).
    validateSchema: false,
    // An annotation for the OpenAPI document (a field the spec lacks); ajv's strict mode refuses unknown keywords.
    keywords: [EXTENSION],
  },
  onCreate: useBoundedFormats,
};

/** Sends the error envelope, with at most MAX_ERROR_DETAILS details (and one more counting the rest). */
export function sendError(
  reply: FastifyReply,
  type: ErrorType,
  message: string,
  details?: ErrorDetail[],
  status: number = ERROR_STATUS[type],
) {
  const error: Record<string, unknown> = { message, error: type };
  if (details) error.details = capDetails(details);
  return reply.status(status).send({ ok: false, error });
}

/** Fastify's `frameworkErrors`: what the router refuses before any route runs (an over-long parameter, a bad escape) is a 400 in the envelope. */
export function frameworkErrors(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
) {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is too long'
      : 'The URL is malformed';
  return sendError(reply, 'VALIDATION_ERROR', message, undefined, 400);
}

/** A whole HTTP/1.1 answer in the error envelope, for a socket that no reply serves; the connection closes after it. */
export function rawErrorAnswer(statusLine: string, type: ErrorType, message: string): string {
  const body = JSON.stringify({ ok: false, error: { message, error: type } });
  return `HTTP/1.1 ${statusLine}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`: what node's HTTP parser refuses (headers or URL over 16 KiB, bad request lines) is answered in the envelope too. */
export function clientErrorHandler(
  error: Error & { code?: string },
  socket: import('node:net').Socket,
): void {
  if (!socket.writable) socket.destroy();
  else if (error.code === 'HPE_HEADER_OVERFLOW')
    socket.end(
      rawErrorAnswer(
        '431 Request Header Fields Too Large',
        'VALIDATION_ERROR',
        'The request headers or URL are too large',
      ),
    );
  else
    socket.end(
      rawErrorAnswer('400 Bad Request', 'VALIDATION_ERROR', 'The HTTP request is malformed'),
    );
}

/** A refusal of a stranger's body: answered at once and the connection closed, nothing more read (slow-body.ts bounds them). */
export class UnauthenticatedBodyRefusal extends Error {
  constructor(
    readonly statusCode: 413 | 503,
    message: string,
  ) {
    super(message);
    this.name = 'UnauthenticatedBodyRefusal';
  }
}

/** Most bytes of a refused body read (and dropped) before its 413 is sent. */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;
/** Longest time spent reading a refused body before its 413 is sent anyway. */
const DRAIN_LIMIT_MS = 10_000;

/** Reads and drops the rest of a body (bounded); true when read to its end. A 413 sent mid-upload reaches `fetch` as EPIPE or a reset. */
function drainRequestBody(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  if (raw.destroyed) return Promise.resolve(false);
  const declared = Number(raw.headers['content-length']);
  if (Number.isFinite(declared) && declared > DRAIN_LIMIT_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onAbort = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), DRAIN_LIMIT_MS).unref();
    raw.on('data', onData).once('end', onEnd).once('error', onAbort).once('close', onAbort);
    raw.resume();
  });
}

/** Sends an error once the body is drained (bounded), then closes: the client reads it, and no leftover body becomes the next request. */
export async function sendClosing(
  request: FastifyRequest,
  reply: FastifyReply,
  type: ErrorType,
  message: string,
) {
  const drained = await drainRequestBody(request.raw);
  reply.header('connection', 'close');
  sendError(reply, type, message, undefined, ERROR_STATUS[type]);
  // Past the bound the client is still sending: nothing more is read, the socket goes once the answer is out.
  if (!drained) reply.raw.once('finish', () => request.raw.socket?.destroySoon());
  return reply;
}

/** Errors of a full disk or an exhausted quota, as the file system reports them. */
const NO_SPACE_CODES: ReadonlySet<unknown> = new Set(['ENOSPC', 'EDQUOT']);

/** Whether an error (or one it wraps) says the disk is full. */
function isNoSpace(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e !== null && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (NO_SPACE_CODES.has((e as { code?: unknown }).code)) return true;
  }
  return false;
}

/** A 413's message, naming the limit when it is the route's body limit (fastify's own says only "Request body is too large"). */
function tooLargeMessage(error: FastifyError, request: FastifyRequest): string {
  const limit = request.routeOptions?.bodyLimit;
  if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE' || typeof limit !== 'number')
    return error.message;
  const mib = limit / (1024 * 1024);
  const readable = mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${Math.round(limit / 1024)} KiB`;
  return `The request body is larger than this endpoint's limit of ${readable} (${limit} bytes)`;
}

/** Installs the error envelope: HttpErrors as they are, validation a 400 with details, fastify's 4xx with their status, anything else a 500 that leaks nothing. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A stranger's body is never drained (reading it is what the refusal spares): answered, then the connection goes.
    if (error instanceof UnauthenticatedBodyRefusal) {
      const socket = request.raw.socket;
      if (error.statusCode === 503) {
        // As a connection refused for a full server is (connection-bound.ts): the connection's answer, not the route's.
        reply.hijack();
        socket?.end(rawErrorAnswer('503 Service Unavailable', 'SERVER_ERROR', error.message));
        setTimeout(() => socket?.destroy(), 1000).unref();
        return reply;
      }
      reply.header('connection', 'close');
      reply.raw.once('finish', () => socket?.destroySoon());
      return sendError(reply, 'PAYLOAD_TOO_LARGE', error.message, undefined, 413);
    }
    if ((error instanceof HttpError ? error.status : error.statusCode) === 413)
      return sendClosing(request, reply, 'PAYLOAD_TOO_LARGE', tooLargeMessage(error, request));
    if (error instanceof HttpError)
      return sendError(reply, error.type, error.message, error.details, error.status);
    // A full disk is not a bug: a 507 that says so, on a connection that closes (a body may be half read); the emulator serves on.
    if (isNoSpace(error)) {
      request.log.warn({ err: error }, 'disk full');
      return sendClosing(
        request,
        reply,
        'INSUFFICIENT_STORAGE',
        'The emulator could not write its data: the disk holding its data dir is full (ENOSPC) or over quota; free some space, then retry',
      );
    }
    if (error.validation) {
      const context = error.validationContext ?? 'body';
      const base = context === 'body' || context === 'querystring' ? [] : [context];
      const details = error.validation.map((e) => fromAjv(e, base));
      const missingBody =
        context === 'body' && (request.body === undefined || request.body === null);
      const message =
        context === 'querystring'
          ? 'Invalid query parameters'
          : missingBody
            ? 'Invalid request body: a JSON object body is required'
            : `Invalid request ${context}: ${details[0]?.message ?? 'validation failed'}`;
      return sendError(reply, 'VALIDATION_ERROR', message, details);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const type = ERROR_TYPE_BY_STATUS[status] ?? 'VALIDATION_ERROR';
      return sendError(reply, type, error.message, undefined, status);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, 'SERVER_ERROR', 'Internal server error', undefined, 500);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A known path with a method it does not have: 405 with the methods it has.
    const allowed = methodsOf(app, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(
        reply,
        'VALIDATION_ERROR',
        `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        undefined,
        405,
      );
    }
    return sendError(reply, 'NOT_FOUND', `No route ${request.method} ${path}`);
  });
}

/** The order of the methods in `Allow`. */
export const ALLOW_ORDER: HTTPMethods[] = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
];

/** The methods `app` routes `path` with (one trailing slash ignored; a catch-all forward is no path of its own), so a 405 can name them. */
function methodsOf(app: FastifyInstance, path: string): string[] {
  const spellings = /[^/]\/$/.test(path) ? [path, path.slice(0, -1)] : [path];
  const routed = (url: string, method: HTTPMethods) => {
    const route = app.findRoute({ method, url });
    // A parameter matches an empty segment here, never in a path of the app's own.
    return route !== null && !('*' in route.params) && !Object.values(route.params).includes('');
  };
  return ALLOW_ORDER.filter((method) => spellings.some((url) => routed(url, method)));
}
