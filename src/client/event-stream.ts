import type { Api } from './api.js';
import { errorCode, NetworkError } from './errors.js';
import type { QueryPairs } from './query.js';
import { redactUrl } from './redact.js';
import { SseParser, type ServerSentEvent } from '../shared/http/sse.js';

/** Options of a server-sent-events subscription. */
export interface EventsOptions {
  /** Ends the iteration (quietly) when aborted. */
  signal?: AbortSignal;
  /** Resume after this event id (sent as Last-Event-ID). */
  lastEventId?: string;
  /** Called once the server has answered with the stream's headers (it is subscribed from then on). */
  onOpen?: () => void;
}

/** An async iterable of server-sent events that also tells how to reconnect. */
export interface EventStream extends AsyncIterable<ServerSentEvent> {
  /** What the server asked with `retry:`, if anything. */
  readonly retryMs: number | undefined;
  readonly lastEventId: string | undefined;
}

/** Subscribes to a text/event-stream endpoint when iteration starts; it ends when the server closes it or `signal` aborts. */
export function openEventStream(
  api: Api,
  path: string,
  query: QueryPairs,
  options: EventsOptions = {},
): EventStream {
  const parser = new SseParser();
  parser.lastEventId = options.lastEventId;
  async function* iterate(): AsyncGenerator<ServerSentEvent> {
    const { signal } = options;
    if (signal?.aborted) return;
    const headers: Record<string, string> = { 'cache-control': 'no-cache' };
    if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
    const opened = await api
      .stream(path, { query, accept: 'text/event-stream', options: { signal, headers } })
      .catch((error: unknown) => {
        if (signal?.aborted) return undefined;
        throw error;
      });
    if (!opened) return;
    options.onOpen?.();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of opened.body) {
        yield* parser.push(decoder.decode(chunk as Buffer, { stream: true }));
      }
      yield* parser.push(decoder.decode());
    } catch (error) {
      if (signal?.aborted) return;
      throw new NetworkError({
        code: errorCode(error),
        method: 'GET',
        url: redactUrl(api.url(path)),
        cause: error,
      });
    } finally {
      opened.release();
      opened.body.destroy();
    }
  }
  return {
    [Symbol.asyncIterator]: iterate,
    get retryMs() {
      return parser.retryMs;
    },
    get lastEventId() {
      return parser.lastEventId;
    },
  };
}
