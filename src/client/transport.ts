import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { Dispatcher } from 'undici';
import { request } from '../shared/http/request.js';
import { errorCode, NetworkError } from './errors.js';
import { unwrap, type Unwrapped } from './envelope.js';
import { toQueryString, type QueryPairs } from './query.js';
import { redactHeaders, redactUrl } from './redact.js';
import { parseRetryAfter } from '#contract/retry-after';
import {
  backoffMs,
  IDEMPOTENT_METHODS,
  MAX_RETRY_AFTER_MS,
  RETRY_STATUSES,
  sleep,
} from './retry.js';

/** Which API a request went to; `upload` is a PUT to a signed object-storage URL. */
export type ApiKind = 'management' | 'messaging' | 'upload';

/** One HTTP attempt, reported to `onTrace` (for `--verbose`). Never carries a secret. */
export interface TraceEvent {
  api: ApiKind;
  method: string;
  /** The URL with signed-URL credentials redacted. */
  url: string;
  /** 1 for the first attempt, 2 for the first retry… */
  attempt: number;
  /** Absent when no response arrived. */
  status?: number;
  durationMs: number;
  /** Request headers, Authorization shown as e.g. `Bearer pst_…abcd`. */
  requestHeaders: Record<string, string>;
  responseHeaders?: Record<string, string>;
  /** Set when the attempt failed without a response. */
  error?: { code: string; message: string };
  /** Set when another attempt follows after this many milliseconds. */
  retryInMs?: number;
}

/** Per-call options every client method accepts last. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** Settings shared by every request of one client (`createClient`'s options, which apply the defaults). */
export interface TransportConfig {
  /** undici dispatcher to send through; without one, node:http(s) sends directly (`createClient` gives a proxy agent when the environment names a proxy). */
  dispatcher?: Dispatcher | Promise<Dispatcher | undefined>;
  userAgent: string;
  /** Per-attempt timeout in milliseconds (0 disables). Default 30 000. */
  timeoutMs: number;
  /** Automatic retries of idempotent reads after network errors and 502/503/504. Default 2. */
  retries: number;
  /** First retry delay in milliseconds, doubled each retry. Default 250. */
  retryBaseMs: number;
  /** Receives every HTTP attempt, secrets redacted (for `--verbose`). */
  onTrace?: (event: TraceEvent) => void;
  /** Whether an attempt that timed out is retried like other network errors. Default true. */
  retryOnTimeout: boolean;
  /** Called once per attempt still unanswered after `slowRequestMs` (a CLI shows that it waits). */
  onSlowRequest?: (info: SlowRequest) => void;
  /** When an attempt counts as slow, in milliseconds. Default 2 000. */
  slowRequestMs: number;
}

/** An attempt that has waited longer than `slowRequestMs` for its answer. */
export interface SlowRequest {
  method: string;
  /** Secrets redacted. */
  url: string;
  waitedMs: number;
  /** The attempt's timeout (0: none). */
  timeoutMs: number;
}

/** One logical request; the transport may make several attempts of it. */
export interface RequestSpec {
  api: ApiKind;
  method: string;
  url: string;
  query?: QueryPairs;
  body?: unknown;
  authorization?: string;
  /** Headers of the API rather than of the call (the emulator admin credential). */
  headers?: Record<string, string>;
  /** Whether retrying is safe; default: GET/HEAD/OPTIONS only. */
  idempotent?: boolean;
  accept?: string;
  options?: CallOptions;
}

interface Attempt {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The whole body, when the attempt read it; else `body`, unread (streams). */
  text?: string;
  body?: Readable;
  /** Ends a stream attempt's abort wiring once the stream is done. */
  release(): void;
}

const TIMEOUT = Symbol('timeout');

/** Sends requests with retries, timeouts and tracing; knows nothing about resources. */
export class Transport {
  constructor(readonly config: TransportConfig) {}

  /** Sends a JSON request and unwraps the envelope (throws ApiError / NetworkError). */
  async json<T>(spec: RequestSpec): Promise<Unwrapped<T>> {
    const attempt = await this.withRetries(spec, true);
    return this.unwrap<T>(spec, attempt, attempt.text ?? '');
  }

  /** Like {@link json}, with the answer's HTTP status (a scenario's request step keeps it). */
  async call<T>(spec: RequestSpec): Promise<Unwrapped<T> & { status: number }> {
    const attempt = await this.withRetries(spec, true);
    return { ...this.unwrap<T>(spec, attempt, attempt.text ?? ''), status: attempt.status };
  }

  /** Opens a streaming response (server-sent events): the timeout covers the headers only; an error status throws ApiError. */
  async stream(
    spec: RequestSpec,
  ): Promise<{ body: Readable; headers: Attempt['headers']; release(): void }> {
    const attempt = await this.withRetries(spec, false);
    if (attempt.status < 200 || attempt.status >= 300) {
      // An unreadable body is fine: the status says enough.
      const body = await text(attempt.body!).catch(() => '');
      attempt.release();
      this.unwrap(spec, attempt, body);
    }
    return { body: attempt.body!, headers: attempt.headers, release: attempt.release };
  }

  private unwrap<T>(spec: RequestSpec, attempt: Attempt, text: string): Unwrapped<T> {
    const contentType = [attempt.headers['content-type']].flat()[0];
    return unwrap<T>({
      status: attempt.status,
      contentType,
      text,
      method: spec.method,
      url: redactUrl(this.fullUrl(spec)),
    });
  }

  /** Headers every request carries, before per-call additions. */
  buildHeaders(spec: RequestSpec): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': this.config.userAgent,
      accept: spec.accept ?? 'application/json',
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (spec.authorization !== undefined) headers.authorization = spec.authorization;
    return { ...headers, ...spec.headers, ...spec.options?.headers };
  }

  /** Reports a trace event; a failing trace callback must not fail the request. */
  trace(event: TraceEvent): void {
    try {
      this.config.onTrace?.(event);
    } catch {
      // Tracing is diagnostics only.
    }
  }

  fullUrl(spec: RequestSpec): string {
    return spec.url + toQueryString(spec.query ?? []);
  }

  private async withRetries(spec: RequestSpec, readBody: boolean): Promise<Attempt> {
    const idempotent = spec.idempotent ?? IDEMPOTENT_METHODS.has(spec.method);
    const maxAttempts = 1 + (idempotent ? Math.max(0, this.config.retries) : 0);
    const signal = spec.options?.signal;
    const url = this.fullUrl(spec);
    const traceBase = {
      api: spec.api,
      method: spec.method,
      url: redactUrl(url),
      requestHeaders: redactHeaders(this.buildHeaders(spec)),
    };

    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      let result: Attempt;
      try {
        result = await this.send(spec, url, readBody);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        const retryable =
          attempt < maxAttempts && (error.code !== 'ETIMEDOUT' || this.config.retryOnTimeout);
        const retryInMs = retryable ? backoffMs(attempt, this.config.retryBaseMs) : undefined;
        this.trace({
          ...traceBase,
          attempt,
          durationMs: elapsed(started),
          error: { code: error.code, message: error.message },
          retryInMs,
        });
        if (retryInMs === undefined) {
          throw new NetworkError({
            code: error.code,
            method: spec.method,
            url: traceBase.url,
            cause: error.cause,
            attempts: attempt,
          });
        }
        await sleep(retryInMs, signal);
        continue;
      }

      const retryInMs =
        attempt < maxAttempts && RETRY_STATUSES.has(result.status)
          ? this.retryDelay(result, attempt)
          : undefined;
      this.trace({
        ...traceBase,
        attempt,
        status: result.status,
        durationMs: elapsed(started),
        responseHeaders: redactHeaders(result.headers),
        retryInMs,
      });
      if (retryInMs === undefined) return result;
      result.release();
      result.body?.resume();
      await sleep(retryInMs, signal);
    }
  }

  private retryDelay(result: Attempt, attempt: number): number | undefined {
    const retryAfter = parseRetryAfter(result.headers['retry-after']);
    if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) return undefined;
    return retryAfter ?? backoffMs(attempt, this.config.retryBaseMs);
  }

  /** One attempt; with `readBody` the timeout covers the body too, so a connection lost mid-body fails it (streams: headers only). */
  private async send(spec: RequestSpec, url: string, readBody: boolean): Promise<Attempt> {
    const userSignal = spec.options?.signal;
    if (userSignal?.aborted) throw userSignal.reason;
    const controller = new AbortController();
    const onUserAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener('abort', onUserAbort, { once: true });
    const timeoutMs = spec.options?.timeoutMs ?? this.config.timeoutMs;
    const timer =
      timeoutMs > 0 ? setTimeout(() => controller.abort(TIMEOUT), timeoutMs) : undefined;
    const onSlow = this.config.onSlowRequest;
    const slowMs = this.config.slowRequestMs;
    const slow =
      onSlow && (timeoutMs === 0 || slowMs < timeoutMs)
        ? setTimeout(
            () => onSlow({ method: spec.method, url: redactUrl(url), waitedMs: slowMs, timeoutMs }),
            slowMs,
          )
        : undefined;
    slow?.unref();
    const release = () => {
      clearTimeout(timer);
      clearTimeout(slow);
      userSignal?.removeEventListener('abort', onUserAbort);
    };
    try {
      const response = await request(url, {
        method: spec.method,
        headers: this.buildHeaders(spec),
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        dispatcher: await this.config.dispatcher,
        signal: controller.signal,
        // Streams may idle between events for as long as they like.
        bodyTimeout: readBody ? undefined : 0,
      });
      if (!readBody) {
        clearTimeout(timer);
        clearTimeout(slow);
        return {
          status: response.statusCode,
          headers: response.headers,
          body: response.body,
          release,
        };
      }
      const body = await text(response.body);
      release();
      return {
        status: response.statusCode,
        headers: response.headers,
        text: body,
        release: () => undefined,
      };
    } catch (error) {
      release();
      throw classify(error, spec, url, controller.signal);
    }
  }
}

/** Maps a failure to the user's abort reason, a timeout NetworkError (ETIMEDOUT) or a NetworkError with the cause's code. */
function classify(error: unknown, spec: RequestSpec, url: string, ownSignal: AbortSignal): unknown {
  const userSignal = spec.options?.signal;
  if (userSignal?.aborted) return userSignal.reason ?? error;
  const code = errorCode(error);
  // undici's own headers and body timeouts (those left when timeoutMs is 0) are timeouts too.
  if (
    ownSignal.reason === TIMEOUT ||
    error === TIMEOUT ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return new NetworkError({
      code: 'ETIMEDOUT',
      method: spec.method,
      url: redactUrl(url),
      cause: error === TIMEOUT ? undefined : error,
    });
  }
  // A request that could not be sent as given (a bad header value or URL) is the caller's error, not the network's.
  if (code.startsWith('UND_ERR_INVALID_ARG') || code.startsWith('ERR_INVALID_')) return error;
  return new NetworkError({ code, method: spec.method, url: redactUrl(url), cause: error });
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
