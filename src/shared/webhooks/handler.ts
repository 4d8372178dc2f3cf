import type { ServerResponse } from 'node:http';
import { answerChallenge } from './challenge.js';
import { WebhookVerificationError } from './errors.js';
import {
  isWebhookEventType,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
} from './events.js';
import type { WebhookRequestHeaders } from './headers.js';
import { RawBodyError, readRawBody, type WebhookIncomingMessage } from './raw-body.js';
import { decodeWebhookSecret, verifyWebhook, type WebhookBody } from './signing.js';

export type { WebhookIncomingMessage } from './raw-body.js';

/** What an event handler may return: an object to send back as JSON, or nothing for `{ ok: true }`. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with no return statement returns void; undefined here would refuse it
export type WebhookHandlerResult = object | void;

/** One optional handler per event kind, each given the event narrowed to its kind. */
export type WebhookHandlers = {
  [T in WebhookEventType]?: (
    event: WebhookEventOf<T>,
  ) => WebhookHandlerResult | Promise<WebhookHandlerResult>;
};

/** Configuration shared by `handleWebhook` and `createWebhookHandler`. */
export interface WebhookHandlerOptions {
  /** The plugin's webhookSecret (`whsec_…`); several during a key rotation. */
  secret: string | readonly string[];
  on: WebhookHandlers;
  /** Called when a handler throws; the delivery is answered 500 so the platform retries it. */
  onError?: (error: unknown, event: WebhookEvent) => void | Promise<void>;
  /** How far the delivery's timestamp may be from now; default 300 s. */
  toleranceSeconds?: number;
}

/** Options of `createWebhookHandler`, which also reads the body itself. */
export interface NodeWebhookHandlerOptions extends WebhookHandlerOptions {
  /** Larger bodies are answered 413; default 1 MiB. */
  maxBodyBytes?: number;
}

/** The answer to give the platform. */
export interface WebhookResponse {
  status: number;
  body: object;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Verifies one delivery and runs its handler; frameworks call it with the raw body and send back
 * `{ status, body }` as JSON. With fastify, keep JSON raw on the webhook route:
 *
 * ```ts
 * app.register(async (scope) => {
 *   scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
 *   scope.post('/webhooks', async (req, reply) => {
 *     const { status, body } = await handleWebhook(req.body as Buffer, req.headers, options);
 *     return reply.code(status).send(body);
 *   });
 * });
 * ```
 */
export async function handleWebhook(
  rawBody: WebhookBody,
  headers: WebhookRequestHeaders,
  options: WebhookHandlerOptions,
): Promise<WebhookResponse> {
  let event: WebhookEvent;
  try {
    event = verifyWebhook(rawBody, headers, options.secret, {
      toleranceSeconds: options.toleranceSeconds,
    });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return error.code === 'INVALID_PAYLOAD'
      ? failure(400, 'VALIDATION_ERROR', error.message)
      : failure(401, 'UNAUTHORIZED', error.message);
  }

  const handler = handlerFor(options.on, event.type);
  if (!handler) return acknowledge(event);
  try {
    const result = await handler(event);
    // A challenge handler that returns nothing only observes the event; the URL still gets verified.
    return result === undefined || result === null
      ? acknowledge(event)
      : { status: 200, body: result };
  } catch (error) {
    await reportSafely(options, error, event);
    // The handler's message may hold internals; the platform's delivery log shows only the event kind.
    return failure(500, 'SERVER_ERROR', `the ${event.type} handler failed`);
  }
}

/**
 * A node:http request listener for the webhook: `http.createServer(createWebhookHandler({ secret, on }))`.
 * Uses `req.rawBody`, or `req.body` when it is a Buffer or string, else reads the stream itself;
 * with express, mount it behind `express.raw({ type: 'application/json' })`.
 */
export function createWebhookHandler(
  options: NodeWebhookHandlerOptions,
): (req: WebhookIncomingMessage, res: ServerResponse) => Promise<void> {
  // Fail at start-up, not on the first delivery, when the secret is mistyped.
  verifySecretShape(options.secret);
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  return async (req, res) => {
    let answer: WebhookResponse;
    try {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        answer = failure(
          405,
          'METHOD_NOT_ALLOWED',
          `webhooks are delivered with POST, not ${req.method}`,
        );
      } else {
        answer = await handleWebhook(await readRawBody(req, maxBytes), req.headers, options);
      }
    } catch (error) {
      if (error instanceof RawBodyError) {
        if (error.status === 413) res.setHeader('connection', 'close');
        answer = failure(
          error.status,
          error.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'SERVER_ERROR',
          error.message,
        );
      } else {
        answer = failure(500, 'SERVER_ERROR', 'the webhook could not be handled');
      }
    }
    send(res, answer);
  };
}

/** The default success answer: the challenge echoed back, else `{ ok: true }`. */
function acknowledge(event: WebhookEvent): WebhookResponse {
  return {
    status: 200,
    body: event.type === 'WEBHOOK_CHALLENGE' ? answerChallenge(event) : { ok: true },
  };
}

type AnyEventHandler = (
  event: WebhookEvent,
) => WebhookHandlerResult | Promise<WebhookHandlerResult>;

function handlerFor(on: WebhookHandlers, type: string): AnyEventHandler | undefined {
  // Own properties only: a type such as "constructor" must not reach Object.prototype.
  if (!isWebhookEventType(type) || !Object.hasOwn(on, type)) return undefined;
  return on[type] as AnyEventHandler | undefined;
}

async function reportSafely(
  options: WebhookHandlerOptions,
  error: unknown,
  event: WebhookEvent,
): Promise<void> {
  try {
    await options.onError?.(error, event);
  } catch {
    // A failing error reporter must not turn a 500 into an unhandled rejection.
  }
}

function verifySecretShape(secret: string | readonly string[]): void {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0)
    throw new TypeError("createWebhookHandler needs the plugin's webhookSecret");
  for (const one of secrets) decodeWebhookSecret(one);
}

function failure(status: number, error: string, message: string): WebhookResponse {
  return { status, body: { ok: false, error: { error, message } } };
}

function send(res: ServerResponse, { status, body }: WebhookResponse): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}
