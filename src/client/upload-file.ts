import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline, Readable, Transform } from 'node:stream';
import { request } from '../shared/http/undici.js';
import { ApiError, errorCode, NetworkError } from './errors.js';
import { redactHeaders, redactUrl } from './redact.js';
import type { Transport } from './transport.js';

/** Options of `uploadFile`. */
export interface UploadFileOptions {
  /** Bytes to send; required for a stream, read from the file for a path. Sent as Content-Length. */
  size?: number;
  contentType?: string;
  /** Called as bytes leave for the server, with the running total and the size. */
  onProgress?: (bytesSent: number, totalBytes: number) => void;
  signal?: AbortSignal;
  /** Aborts when no byte is sent nor any answer arrives for this long; defaults to the client's timeout. */
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
}

/** What the object store answered. */
export interface UploadResult {
  status: number;
  etag?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Where an upload's bytes come from: a file path or a stream. */
export type UploadSource = string | Readable | AsyncIterable<Uint8Array>;

/** Streams a file to a pre-signed URL with a plain PUT; never retried, as the source can be read only once. */
export async function uploadFile(
  transport: Transport,
  signedUrl: string,
  source: UploadSource,
  options: UploadFileOptions = {},
): Promise<UploadResult> {
  const size = options.size ?? (typeof source === 'string' ? (await stat(source)).size : undefined);
  if (size === undefined)
    throw new TypeError(
      'uploadFile: pass `size` when the source is a stream (object stores need Content-Length)',
    );
  const input =
    typeof source === 'string'
      ? createReadStream(source)
      : source instanceof Readable
        ? source
        : Readable.from(source);

  const headers: Record<string, string> = {
    'user-agent': transport.config.userAgent,
    'content-length': String(size),
    ...(options.contentType !== undefined ? { 'content-type': options.contentType } : {}),
    ...options.headers,
  };
  const safeUrl = redactUrl(signedUrl);
  const controller = new AbortController();
  const onUserAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onUserAbort, { once: true });
  const idleMs = options.idleTimeoutMs ?? transport.config.timeoutMs;
  let timedOut = false;
  // Restarted by every chunk sent.
  const onIdle = () => {
    timedOut = true;
    controller.abort();
  };
  const idleTimer = idleMs > 0 ? setTimeout(onIdle, idleMs) : undefined;

  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      idleTimer?.refresh();
      options.onProgress?.(sent, size);
      done(null, chunk);
    },
  });
  // Errors of the source reach undici through the destroyed counter.
  pipeline(input, counter, () => undefined);

  const started = performance.now();
  const trace = (extra: {
    status?: number;
    responseHeaders?: Record<string, string>;
    error?: { code: string; message: string };
  }) =>
    transport.trace({
      api: 'upload',
      method: 'PUT',
      url: safeUrl,
      attempt: 1,
      durationMs: Math.round(performance.now() - started),
      requestHeaders: redactHeaders(headers),
      ...extra,
    });

  try {
    if (options.signal?.aborted) throw options.signal.reason;
    const response = await request(signedUrl, {
      method: 'PUT',
      headers,
      body: counter,
      dispatcher: transport.config.dispatcher,
      signal: controller.signal,
    });
    const text = await response.body.text();
    trace({ status: response.statusCode, responseHeaders: redactHeaders(response.headers) });
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw storageError(response.statusCode, text, safeUrl);
    const etag = response.headers.etag;
    return {
      status: response.statusCode,
      etag: Array.isArray(etag) ? etag[0] : etag,
      headers: response.headers,
    };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    const code = timedOut ? 'ETIMEDOUT' : errorCode(error);
    const failure = new NetworkError({ code, method: 'PUT', url: safeUrl, cause: error });
    trace({ error: { code, message: failure.message } });
    throw failure;
  } finally {
    clearTimeout(idleTimer);
    options.signal?.removeEventListener('abort', onUserAbort);
    input instanceof Readable && !input.destroyed && input.destroy();
  }
}

/** An object store's error: S3 answers XML with `<Code>` and `<Message>`. */
function storageError(status: number, text: string, url: string): ApiError {
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1];
  const detail = code
    ? `: ${code}${message ? ` (${message})` : ''}`
    : text.trim() && !text.trim().startsWith('<')
      ? `: ${text.trim().slice(0, 200)}`
      : '';
  return new ApiError({
    status,
    type: code ?? (status >= 500 ? 'SERVER_ERROR' : 'HTTP_ERROR'),
    message: `upload to ${new URL(url).host} failed with HTTP ${status}${detail}`,
    method: 'PUT',
    url,
    body: text.slice(0, 2000) || undefined,
  });
}
