import type { Dispatcher as HttpDispatcher } from 'undici';
import { request } from '../http-client.js';
import { webhookHeaders } from '../../src/webhooks/signing.js';

/** The part of an answer kept in the delivery log. */
export const LOGGED_BODY_BYTES = 2048;
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
}

/** What to send, where, signed with which secret. */
export interface AttemptInput {
  url: string;
  eventId: string;
  body: string;
  secret: string;
  timeoutMs: number;
  /** Aborted when the emulator closes. */
  stop: AbortSignal;
  http: HttpDispatcher;
}

/** Sends one signed delivery (fresh timestamp and signature) and reads the answer; never throws. */
export async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  const started = Date.now();
  const headers = webhookHeaders({ id: input.eventId, body: input.body, secret: input.secret });
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const signal = AbortSignal.any([timeout, input.stop]);
  const outcome: AttemptOutcome = {
    startedAt: new Date(started).toISOString(),
    webhookTimestamp: headers['webhook-timestamp'],
    durationMs: 0,
    status: null,
    headers: {},
    body: null,
    error: null,
    interrupted: false,
  };
  const send = (fresh: boolean) =>
    request(input.url, {
      method: 'POST',
      body: input.body,
      headers: { ...headers, 'user-agent': 'plugsmith-emulator' },
      signal,
      dispatcher: input.http,
      reset: fresh,
    });
  try {
    let response;
    try {
      // Connections are kept alive between deliveries: opening one per attempt costs more than the delivery.
      response = await send(false);
    } catch (error) {
      // A kept-alive socket the target closed (it restarted, or its idle timeout passed) fails before
      // any answer: send once more on a fresh connection. The same webhook-id lets a receiver dedupe.
      if (!isStaleSocket(error) || signal.aborted) throw error;
      response = await send(true);
    }
    outcome.status = response.statusCode;
    outcome.headers = response.headers;
    outcome.body = await readLimited(response.body);
  } catch (error) {
    if (input.stop.aborted && !timeout.aborted) outcome.interrupted = true;
    outcome.error = timeout.aborted ? `no answer within ${input.timeoutMs} ms` : describeNetworkError(error, input.url);
  }
  outcome.durationMs = Date.now() - started;
  return outcome;
}

function isStaleSocket(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  const code = e?.code === 'UND_ERR_SOCKET' ? (e.cause?.code ?? e.code) : e?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED';
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= READ_BODY_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, READ_BODY_BYTES).toString('utf8');
}

/** A short, person-readable reason for a failed request, from undici's error and its cause. */
export function describeNetworkError(error: unknown, url: string): string {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code && e.code !== 'UND_ERR_SOCKET' ? e.code : e?.cause?.code ?? e?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${origin(url)}: is the webhook server running?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${url} could not be resolved`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `the connection to ${origin(url)} was closed before an answer`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect to ${origin(url)} in time`;
    default:
      return `request failed: ${e?.cause?.message ?? e?.message ?? String(error)}`;
  }
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The logged form of an answer body: at most 2 KB, marked when cut. */
export function truncateForLog(body: string | null): string | null {
  if (body === null) return null;
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= LOGGED_BODY_BYTES) return body;
  return bytes.subarray(0, LOGGED_BODY_BYTES).toString('utf8') + '…';
}
