import type { IncomingHttpHeaders } from 'node:http';
import { type Readable, pipeline } from 'node:stream';
import type { Dispatcher } from 'undici';

/** One HTTP request of the client. */
export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  /** A string is sent with its Content-Length; a stream needs `content-length` among the headers (object stores refuse chunked uploads). */
  body?: string | Readable;
  signal?: AbortSignal;
  /** An undici dispatcher to send through (a proxy agent, a caller's own agent); without one, node:http(s) sends directly. */
  dispatcher?: Dispatcher;
  /** With a dispatcher: undici's limit on the wait between two body chunks (0: none, for SSE streams). */
  bodyTimeout?: number;
}

/** The answer: status, headers, and the body, unread. */
export interface HttpResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/**
 * Sends one request: through `dispatcher` with undici when one is given, else directly with node:http(s).
 * undici is imported only then: loading it is most of a short command's start
 * (budget: `plugsmith plugins list --json` <= 400 ms, `npm run bench -- cli`).
 */
export async function request(url: string, options: HttpRequest): Promise<HttpResponse> {
  if (options.dispatcher !== undefined) return throughDispatcher(url, options, options.dispatcher);
  return direct(url, options);
}

async function throughDispatcher(
  url: string,
  options: HttpRequest,
  dispatcher: Dispatcher,
): Promise<HttpResponse> {
  const undici = await import('undici');
  const response = await undici.request(url, {
    method: options.method as Dispatcher.HttpMethod,
    headers: options.headers,
    body: options.body,
    signal: options.signal,
    dispatcher,
    bodyTimeout: options.bodyTimeout,
  });
  return { statusCode: response.statusCode, headers: response.headers, body: response.body };
}

async function direct(url: string, options: HttpRequest): Promise<HttpResponse> {
  const target = new URL(url);
  const { request: send } =
    target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers = { ...options.headers };
  if (typeof options.body === 'string')
    headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const outgoing = send(target, { method: options.method, headers, signal: options.signal });
    outgoing.once('response', (incoming) =>
      resolve({ statusCode: incoming.statusCode ?? 0, headers: incoming.headers, body: incoming }),
    );
    // Also catches errors after the answer came (an abort mid-body reaches the body's reader too).
    outgoing.on('error', reject);
    const body = options.body;
    if (body === undefined || typeof body === 'string') outgoing.end(body);
    // A failing source destroys the request, which then fails with the source's error.
    else pipeline(body, outgoing, () => undefined);
  });
}
