import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
// Types only (the platform's event payloads, from plugsmith, a devDependency): they vanish at build.
import type { WebhookEvent, WebhookEventOf, WebhookEventType } from 'plugsmith/webhooks';

/** What a handler may return: an object to send back as JSON, or nothing for `{ ok: true }`. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with no return statement returns void; undefined here would refuse it
export type HandlerResult = object | void;

/** One optional handler per event kind, each given the event narrowed to its kind. */
export type WebhookHandlers = {
  [T in WebhookEventType]?: (event: WebhookEventOf<T>) => HandlerResult | Promise<HandlerResult>;
};

/** How the webhook checks and dispatches deliveries. */
export interface WebhookOptions {
  /** The plugin's webhookSecret (`whsec_…`); several during a secret rotation, any of which may sign a delivery. */
  secret: string | string[];
  on: WebhookHandlers;
  /** Told of a handler that threw, with the delivery's webhook-id; the delivery is answered 500, so the platform retries it. */
  onError?: (error: unknown, event: WebhookEvent, webhookId: string) => void;
  /** Told of every verified event answered 2xx, with the time its handler took. */
  onHandled?: (event: WebhookEvent, ms: number) => void;
  /** Told of a delivery refused before any work (not signed with the secret, a timestamp out of the window), with why; never the secret. */
  onRefused?: (webhookId: string, reason: string) => void;
  /** Told of a delivery whose webhook-id was already handled within the window: answered again, not handled again. */
  onDuplicate?: (webhookId: string) => void;
  /** Larger bodies are answered 413; default 1 MiB. */
  maxBodyBytes?: number;
}

interface Answer {
  status: number;
  body: object;
}

/** How far a delivery's timestamp may be from now, either way (Standard Webhooks: 5 minutes). */
const TOLERANCE_SECONDS = 5 * 60;
/** At most this many handled webhook-ids are remembered; the oldest go first. */
const REMEMBERED_DELIVERIES = 10_000;

/**
 * The webhook as a node:http request listener. Every delivery is checked first (Standard Webhooks,
 * with the `standardwebhooks` library: the signature over the raw body, and a timestamp within 5
 * minutes of now, so a captured delivery cannot be replayed once that window is over): 401 when that
 * fails, before any work. Within the window a captured delivery is still valid, and the platform
 * retries with the same webhook-id: a webhook-id already answered 2xx in the last 5 minutes gets
 * the same answer again, without its handler running twice. Then WEBHOOK_CHALLENGE is answered
 * `{ challenge }` (the platform verifies the URL with it), and the handler of the event's kind runs;
 * a type without a handler is answered `{ ok: true }` (the platform adds types over time). A handler
 * that throws answers 500, and the platform retries.
 */
export function createWebhookHandler(
  options: WebhookOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  if (secrets.length === 0) throw new Error("the webhook needs the plugin's webhookSecret");
  // A mistyped secret fails here, at start-up, rather than on the first delivery.
  const verifiers = secrets.map((secret) => {
    try {
      return new Webhook(secret);
    } catch (error) {
      throw new Error(
        `invalid webhook secret (expected "whsec_" and base64, the plugin's webhookSecret): ${(error as Error).message}`,
      );
    }
  });
  const maxBytes = options.maxBodyBytes ?? 1024 * 1024;
  const deliveries = new HandledDeliveries();

  async function answer(req: IncomingMessage): Promise<Answer> {
    const raw = await readBody(req, maxBytes);
    if (raw === null)
      return failure(413, 'PAYLOAD_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
    const headers = {
      'webhook-id': header(req, 'webhook-id'),
      'webhook-timestamp': header(req, 'webhook-timestamp'),
      'webhook-signature': header(req, 'webhook-signature'),
    };
    // Digits only: a timestamp that is not a number is malformed (400), not merely unsigned.
    const timestamp = headers['webhook-timestamp'];
    const malformedTimestamp = timestamp !== '' && !/^[0-9]{1,15}$/.test(timestamp);
    if (malformedTimestamp) {
      options.onRefused?.(
        headers['webhook-id'],
        'webhook-timestamp is not seconds since the epoch',
      );
      return failure(
        400,
        'VALIDATION_ERROR',
        'webhook-timestamp must be seconds since the epoch, in ASCII digits',
      );
    }
    // The raw bytes as received: parsing and re-serialising the JSON first would change what was signed.
    let refusal = '';
    const verified = verifiers.some((verifier) => {
      try {
        verifier.verify(raw, headers, { jsonParse: false });
        return true;
      } catch (error) {
        refusal ||= (error as Error).message;
        return false;
      }
    });
    if (!verified) {
      options.onRefused?.(headers['webhook-id'], refusalReason(refusal));
      return failure(
        401,
        'UNAUTHORIZED',
        "the delivery is not signed with this plugin's secret, or its timestamp is too old or too new",
      );
    }
    const webhookId = headers['webhook-id'];
    const earlier = deliveries.answerOf(webhookId);
    if (earlier) {
      options.onDuplicate?.(webhookId);
      return earlier;
    }
    const handling = handle(raw, webhookId);
    // Valid until its timestamp leaves the window; a retry of it within 5 minutes of now is caught too.
    const windowStart = Math.max(Number(timestamp) * 1000, Date.now());
    deliveries.remember(webhookId, handling, windowStart + TOLERANCE_SECONDS * 1000);
    return handling;
  }

  /** Parses the verified body and runs the handler of its type. */
  async function handle(raw: string, webhookId: string): Promise<Answer> {
    let event: WebhookEvent;
    try {
      event = JSON.parse(raw) as WebhookEvent;
    } catch {
      return failure(400, 'VALIDATION_ERROR', 'the body is not JSON');
    }
    if (
      typeof event !== 'object' ||
      event === null ||
      typeof event.id !== 'string' ||
      typeof event.type !== 'string'
    ) {
      return failure(
        400,
        'VALIDATION_ERROR',
        'the body is not an event with a string "id" and "type"',
      );
    }

    const started = Date.now();
    // Own properties only: a type such as "constructor" must not reach Object.prototype.
    const handler = Object.hasOwn(options.on, event.type)
      ? (
          options.on as Record<
            string,
            ((e: WebhookEvent) => HandlerResult | Promise<HandlerResult>) | undefined
          >
        )[event.type]
      : undefined;
    let result: HandlerResult;
    try {
      result = await handler?.(event);
    } catch (error) {
      try {
        options.onError?.(error, event, webhookId);
      } catch {
        // a failing reporter must not turn the 500 into an unhandled rejection
      }
      // The handler's message may hold internals; the platform's delivery log shows only the type.
      return failure(500, 'SERVER_ERROR', `the ${event.type} handler failed`);
    }
    options.onHandled?.(event, Date.now() - started);
    if (result !== undefined && result !== null) return { status: 200, body: result };
    return {
      status: 200,
      body:
        event.type === 'WEBHOOK_CHALLENGE' ? { challenge: event.data?.challenge } : { ok: true },
    };
  }

  return async (req, res) => {
    let reply: Answer;
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      reply = failure(
        405,
        'METHOD_NOT_ALLOWED',
        `webhooks are delivered with POST, not ${req.method}`,
      );
    } else {
      try {
        reply = await answer(req);
      } catch {
        reply = failure(500, 'SERVER_ERROR', 'the webhook could not be handled');
      }
    }
    if (reply.status === 413) res.setHeader('connection', 'close');
    res
      .writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(reply.body));
  };
}

/**
 * The answers of the deliveries handled in the signature window, by webhook-id: a delivery replayed
 * (or retried after its answer was lost) is answered again without its handler running twice. A
 * webhook-id being handled is awaited, not handled again; one that was not answered 2xx is forgotten,
 * so the platform's retry does the work.
 */
class HandledDeliveries {
  private readonly answers = new Map<string, { expiresAt: number; answer: Promise<Answer> }>();
  private sweptAt = 0;

  answerOf(webhookId: string): Promise<Answer> | undefined {
    this.sweep();
    const entry = this.answers.get(webhookId);
    return entry && entry.expiresAt > Date.now() ? entry.answer : undefined;
  }

  remember(webhookId: string, answer: Promise<Answer>, expiresAt: number): void {
    this.answers.set(webhookId, { expiresAt, answer });
    if (this.answers.size > REMEMBERED_DELIVERIES) {
      const oldest = this.answers.keys().next().value as string;
      this.answers.delete(oldest);
    }
    void answer.then(
      (settled) => {
        if (settled.status < 200 || settled.status > 299) this.forget(webhookId, answer);
      },
      () => this.forget(webhookId, answer),
    );
  }

  private forget(webhookId: string, answer: Promise<Answer>): void {
    if (this.answers.get(webhookId)?.answer === answer) this.answers.delete(webhookId);
  }

  /** Drops the expired entries, at most once a second. */
  private sweep(): void {
    const now = Date.now();
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [webhookId, entry] of this.answers) {
      if (entry.expiresAt <= now) this.answers.delete(webhookId);
    }
  }
}

/** Why `standardwebhooks` refused a delivery, in the words of the plugin's log. */
function refusalReason(message: string): string {
  if (/missing required headers/i.test(message))
    return 'no webhook-id, webhook-timestamp or webhook-signature header';
  if (/too old|too new/i.test(message))
    return `webhook-timestamp more than ${TOLERANCE_SECONDS} s from now (a replay, or a wrong clock)`;
  return "no signature made with this plugin's secret (is PLUGSMITH_WEBHOOK_SECRET the plugin's webhookSecret?)";
}

function failure(status: number, error: string, message: string): Answer {
  return { status, body: { ok: false, error: { error, message } } };
}

/** One header's value ('' when absent); node:http joins a repeated header with ", ". */
function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

/** The body as text, or null once it passes `maxBytes` (the rest is drained, so the 413 still reaches the sender). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  if (Number(req.headers['content-length']) > maxBytes) {
    req.resume();
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else finish(() => resolve(null));
    };
    const onEnd = (): void => finish(() => resolve(Buffer.concat(chunks).toString('utf8')));
    const onError = (error: Error): void => finish(() => reject(error));
    // The listeners come off but the stream keeps flowing: an oversized body drains instead of
    // taking its socket down with it.
    const finish = (settle: () => void): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      req.on('error', () => undefined);
      req.resume();
      settle();
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
