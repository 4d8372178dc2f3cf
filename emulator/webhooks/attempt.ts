import type { Dispatcher as HttpDispatcher } from 'undici';
import { webhookHeaders } from '../../src/shared/webhooks/signing.js';
import type { DeliveryAttempt } from '../model.js';
import { nowIso } from '../store/ids.js';

/** The part of an answer kept in the delivery log. */
const LOGGED_BODY_BYTES = 2048;
/** The most of an answer read at all (enough for any challenge answer); the rest is dropped. */
const READ_BODY_BYTES = 64 * 1024;

/** What one POST to a webhook gave. */
export interface AttemptOutcome {
  startedAt: string;
  webhookTimestamp: string;
  durationMs: number;
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  /** The answer, up to 64 KB, as text. */
  body: string | null;
  /** Why no answer came (timeout, refused connection…); null when one did. */
  error: string | null;
  /** True when the emulator itself cut the attempt short (it is closing): the attempt does not count. */
  interrupted: boolean;
  /** The headers sent (the Standard Webhooks headers among them); absent when nothing was sent. */
  requestHeaders?: Record<string, string>;
}

/** What to send, where, signed with which secret. */
export interface AttemptInput {
  url: string;
  eventId: string;
  body: string;
  /** Several during a secret rotation's grace period: one signature each. */
  secret: string | readonly string[];
  timeoutMs: number;
  http: HttpDispatcher;
  /** Attempts in flight, so that closing can interrupt them; the attempt adds and removes itself. */
  live: Set<WebhookAttempt>;
}

/** Sends one signed delivery (fresh timestamp and signature) and reads the answer; never throws. */
export function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  return new Promise((resolve) => new WebhookAttempt(input, resolve).start());
}

/** Whether an attempt succeeded: the webhook answered with a 2xx status and nothing else went wrong. */
export function answered2xx(status: number | null, problem: string | null): boolean {
  return status !== null && status >= 200 && status <= 299 && problem === null;
}

/** The outcome of an attempt that was not sent (its URL is refused, or fault injection dropped it). */
export function notSent(reason: string): AttemptOutcome {
  return {
    startedAt: nowIso(),
    webhookTimestamp: '',
    durationMs: 0,
    status: null,
    headers: {},
    body: null,
    error: reason,
    interrupted: false,
  };
}

/** One POST on undici's dispatch API with one timer: a body stream and an AbortSignal per attempt were most of a delivery's cost. */
export class WebhookAttempt implements HttpDispatcher.DispatchHandler {
  private readonly started = Date.now();
  private readonly outcome: AttemptOutcome;
  private readonly headers: Record<string, string>;
  private readonly origin: string;
  private readonly path: string;
  private controller: HttpDispatcher.DispatchController | null = null;
  private timer: NodeJS.Timeout | null = null;
  private chunks: Buffer[] = [];
  private size = 0;
  private freshConnection = false;
  private done = false;

  constructor(
    private readonly input: AttemptInput,
    private readonly resolve: (outcome: AttemptOutcome) => void,
  ) {
    const headers = webhookHeaders({ id: input.eventId, body: input.body, secret: input.secret });
    this.headers = { ...headers, 'user-agent': 'plugsmith-emulator' };
    this.outcome = {
      startedAt: new Date(this.started).toISOString(),
      webhookTimestamp: headers['webhook-timestamp'],
      durationMs: 0,
      status: null,
      headers: {},
      body: null,
      error: null,
      interrupted: false,
      requestHeaders: this.headers,
    };
    ({ origin: this.origin, path: this.path } = target(input.url));
  }

  start(): void {
    if (!this.origin) {
      this.finish(`request failed: invalid URL ${this.input.url}`);
      return;
    }
    this.input.live.add(this);
    this.timer = setTimeout(
      () => this.finish(`no answer within ${this.input.timeoutMs} ms`),
      this.input.timeoutMs,
    );
    this.send();
  }

  /** Ends the attempt at once, as not made (the emulator is closing). */
  interrupt(): void {
    if (this.done) return;
    this.outcome.interrupted = true;
    this.finish('the emulator closed before an answer');
  }

  private send(): void {
    try {
      this.input.http.dispatch(
        {
          origin: this.origin,
          path: this.path,
          method: 'POST',
          headers: this.headers,
          body: this.input.body,
          reset: this.freshConnection,
        },
        this,
      );
    } catch (error) {
      this.finish(describeNetworkError(error, this.input.url, this.origin));
    }
  }

  onRequestStart(controller: HttpDispatcher.DispatchController): void {
    // Timed out (or interrupted) while queued for a connection.
    if (this.done) controller.abort(new Error('attempt over'));
    else this.controller = controller;
  }

  onResponseStart(
    _controller: HttpDispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.outcome.status = statusCode;
    this.outcome.headers = headers;
  }

  onResponseData(controller: HttpDispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= READ_BODY_BYTES) {
      // Enough read: keep what came and drop the connection rather than read on.
      this.finish(null);
      controller.abort(new Error('answer too long'));
    }
  }

  onResponseEnd(): void {
    this.finish(null);
  }

  onResponseError(_controller: HttpDispatcher.DispatchController, error: Error): void {
    if (this.done) return;
    // A kept-alive socket the target closed fails before any answer: resend once on a fresh connection (same webhook-id).
    if (this.outcome.status === null && !this.freshConnection && isStaleSocket(error)) {
      this.freshConnection = true;
      this.controller = null;
      this.send();
      return;
    }
    this.finish(describeNetworkError(error, this.input.url, this.origin));
  }

  private finish(error: string | null): void {
    if (this.done) return;
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.input.live.delete(this);
    if (error !== null) {
      this.outcome.error = error;
      this.controller?.abort(new Error(error));
    }
    if (this.outcome.status !== null) {
      this.outcome.body = (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks))
        .subarray(0, READ_BODY_BYTES)
        .toString('utf8');
    }
    this.chunks = [];
    this.outcome.durationMs = Date.now() - this.started;
    this.resolve(this.outcome);
  }
}

/** The origin and path of a webhook URL (empty for one that does not parse: the request then fails). */
function target(url: string): { origin: string; path: string } {
  try {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
  } catch {
    return { origin: '', path: '' };
  }
}

function isStaleSocket(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  const code = e?.code === 'UND_ERR_SOCKET' ? (e.cause?.code ?? e.code) : e?.code;
  return (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CLOSED'
  );
}

/** A short, person-readable reason for a failed request, from undici's error and its cause. */
function describeNetworkError(error: unknown, url: string, origin: string): string {
  const e = error as {
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  const code = e?.code && e.code !== 'UND_ERR_SOCKET' ? e.code : (e?.cause?.code ?? e?.code);
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${origin}: is the webhook server running?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${url} could not be resolved`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `the connection to ${origin} was closed before an answer`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect to ${origin} in time`;
    default:
      return `request failed: ${e?.cause?.message ?? e?.message ?? String(error)}`;
  }
}

/** The delivery log's entry of an attempt: the answer's body cut at 2 KB, its headers at 64 of 1 KB. */
export function loggedAttempt(
  outcome: AttemptOutcome,
  entry: Pick<DeliveryAttempt, 'number' | 'url' | 'error' | 'nextAttemptAt'>,
): DeliveryAttempt {
  return {
    number: entry.number,
    startedAt: outcome.startedAt,
    url: entry.url,
    webhookTimestamp: outcome.webhookTimestamp,
    durationMs: outcome.durationMs,
    responseStatus: outcome.status,
    responseBody: truncateForLog(outcome.body),
    error: entry.error,
    nextAttemptAt: entry.nextAttemptAt,
    ...(outcome.requestHeaders ? { requestHeaders: outcome.requestHeaders } : {}),
    ...(outcome.status !== null ? { responseHeaders: headersForLog(outcome.headers) } : {}),
  };
}

function truncateForLog(body: string | null): string | null {
  if (body === null) return null;
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= LOGGED_BODY_BYTES) return body;
  return bytes.subarray(0, LOGGED_BODY_BYTES).toString('utf8') + '…';
}

/** The most response headers kept per attempt, and the most characters of each value. */
const LOGGED_HEADERS = 64;
const LOGGED_HEADER_CHARS = 1024;

/** Names lower-case, repeated values joined. */
function headersForLog(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  let kept = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (++kept > LOGGED_HEADERS) break;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[name.toLowerCase()] =
      text.length > LOGGED_HEADER_CHARS ? `${text.slice(0, LOGGED_HEADER_CHARS)}…` : text;
  }
  return out;
}
