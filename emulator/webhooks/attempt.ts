import { request, type Dispatcher } from 'undici';
import { webhookHeaders } from '#shared/webhooks/signing';
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

/** An attempt in flight, which the dispatcher interrupts when the emulator closes. */
export interface RunningAttempt {
  /** Ends the attempt at once, as not made. */
  interrupt(): void;
}

/** What to send, where, signed with which secret. */
export interface AttemptInput {
  url: string;
  eventId: string;
  body: string;
  /** Several during a secret rotation's grace period: one signature each. */
  secret: string | readonly string[];
  timeoutMs: number;
  http: Dispatcher;
  /** Attempts in flight, so that closing can interrupt them; the attempt adds and removes itself. */
  live: Set<RunningAttempt>;
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

/** Sends one signed delivery (fresh timestamp and signature) with undici's `request()` and reads the answer; never throws. */
export async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  const started = Date.now();
  const signed = webhookHeaders({ id: input.eventId, body: input.body, secret: input.secret });
  const headers = { ...signed, 'user-agent': 'plugsmith-emulator' };
  const outcome: AttemptOutcome = {
    startedAt: new Date(started).toISOString(),
    webhookTimestamp: signed['webhook-timestamp'],
    durationMs: 0,
    status: null,
    headers: {},
    body: null,
    error: null,
    interrupted: false,
    requestHeaders: headers,
  };
  const finish = (error: string | null): AttemptOutcome => {
    outcome.error = error;
    outcome.durationMs = Date.now() - started;
    return outcome;
  };
  if (!URL.canParse(input.url)) return finish(`request failed: invalid URL ${input.url}`);
  const origin = new URL(input.url).origin;

  // One abort for both ends of an attempt: no answer in time, or the emulator closing.
  const controller = new AbortController();
  let stoppedBecause: string | null = null;
  const stop = (reason: string) => {
    stoppedBecause ??= reason;
    controller.abort(new Error(reason));
  };
  const running: RunningAttempt = {
    interrupt: () => {
      if (stoppedBecause === null) outcome.interrupted = true;
      stop('the emulator closed before an answer');
    },
  };
  const timer = setTimeout(() => stop(`no answer within ${input.timeoutMs} ms`), input.timeoutMs);
  input.live.add(running);
  const chunks: Buffer[] = [];
  try {
    const response = await post(input, headers, controller.signal);
    outcome.status = response.statusCode;
    outcome.headers = response.headers;
    await readAnswer(response.body, chunks);
    return finish(null);
  } catch (error) {
    if (stoppedBecause !== null) return finish(stoppedBecause);
    return finish(describeNetworkError(error, input.url, origin));
  } finally {
    clearTimeout(timer);
    input.live.delete(running);
    if (outcome.status !== null) {
      const answer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      outcome.body = answer.subarray(0, READ_BODY_BYTES).toString('utf8');
    }
  }
}

/** A send whose connection was closed before an answer, sent once more on a fresh connection, which failed too. */
class ResendFailed extends Error {
  constructor(
    /** Why the resend failed. */
    readonly resend: unknown,
  ) {
    super('the connection was closed before an answer, and the resend failed');
  }
}

/** The POST itself; a kept-alive socket the target closed fails before any answer, so it is sent once more on a fresh connection (same webhook-id). */
async function post(
  input: AttemptInput,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const send = (reset: boolean) =>
    request(input.url, {
      dispatcher: input.http,
      method: 'POST',
      headers,
      body: input.body,
      signal,
      reset,
    });
  try {
    return await send(false);
  } catch (error) {
    if (signal.aborted || !isStaleSocket(error)) throw error;
    try {
      return await send(true);
    } catch (resendError) {
      if (signal.aborted) throw resendError;
      // The first connection may have carried the request to the webhook (which then crashed or closed it): the resend's
      // error alone would tell of the second connection only.
      throw new ResendFailed(resendError);
    }
  }
}

/** Reads an answer into `chunks`, up to 64 KB; past that the connection is dropped rather than read on. */
async function readAnswer(body: Dispatcher.ResponseData['body'], chunks: Buffer[]): Promise<void> {
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= READ_BODY_BYTES) {
      body.destroy();
      return;
    }
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

/** undici's error code, or its cause's under a socket error (`UND_ERR_SOCKET` wrapping `ECONNRESET`). */
function networkCode(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code && e.code !== 'UND_ERR_SOCKET' ? e.code : (e?.cause?.code ?? e?.code);
}

/**
 * A short, person-readable reason for a failed request, from undici's error and its cause. "Connection refused" only when no
 * connection was made at all: a connection closed with the request on it says so, even when its resend was then refused.
 */
function describeNetworkError(error: unknown, url: string, origin: string): string {
  if (error instanceof ResendFailed) {
    const closed = `the connection to ${origin} was closed before an answer`;
    switch (networkCode(error.resend)) {
      case 'ECONNREFUSED':
        return `${closed}; a new one was refused (the server stopped)`;
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        // The new connection was closed the same way: the same words tell both.
        return closed;
      default:
        return `${closed}; sent again on a new connection: ${describeNetworkError(error.resend, url, origin)}`;
    }
  }
  const e = error as { message?: string; cause?: { message?: string } };
  switch (networkCode(error)) {
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
