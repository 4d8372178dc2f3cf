import { request } from 'undici';
import { SseParser } from '../client/sse.js';
import { NetworkError } from '../client/errors.js';
import type { DeliveryAttemptNotice } from '../contract/index.js';
import { ADMIN_HEADER } from '../client/client.js';

/** Filters the emulator's delivery stream applies. */
export interface StreamFilters {
  pluginId?: string;
  pluginInstanceId?: string;
  type?: string;
  status?: string;
}

/** Options of `followDeliveries`. */
export interface FollowOptions {
  signal: AbortSignal;
  /** The emulator's admin credential (header `x-plugsmith-admin`); the stream is an admin route. */
  adminToken?: string;
  /** Called each time the stream is open (first connection and reconnections). */
  onOpen?: () => void;
  /** Reconnect when the stream ends or fails (dev: the emulator may restart); otherwise the promise settles. */
  reconnect?: boolean;
  /** Called when a connection is lost and will be retried. */
  onRetry?: (error: unknown) => void;
}

/**
 * Reads `GET /_emulator/deliveries/stream` and calls `onAttempt` for every attempt until the
 * signal aborts (resolves), the stream ends (resolves) or fails (throws), unless `reconnect`.
 * The stream is read here rather than through the client so the caller learns when it is open:
 * attempts made before that moment are not on it.
 */
export async function followDeliveries(baseUrl: string, filters: StreamFilters, onAttempt: (notice: DeliveryAttemptNotice) => void, options: FollowOptions): Promise<void> {
  const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const url = `${baseUrl.replace(/\/+$/, '')}/_emulator/deliveries/stream${query.size ? `?${query}` : ''}`;
  let delay = 250;
  for (;;) {
    if (options.signal.aborted) return;
    try {
      await readOnce(url, onAttempt, options);
      if (options.signal.aborted || !options.reconnect) return;
    } catch (error) {
      if (options.signal.aborted) return;
      if (!options.reconnect) throw error;
      options.onRetry?.(error);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 5000);
  }
}

async function readOnce(url: string, onAttempt: (notice: DeliveryAttemptNotice) => void, options: FollowOptions): Promise<void> {
  let response;
  try {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.adminToken) headers[ADMIN_HEADER] = options.adminToken;
    response = await request(url, { method: 'GET', headers, signal: options.signal, bodyTimeout: 0 });
  } catch (error) {
    if (options.signal.aborted) return;
    const code = (error as { code?: unknown }).code;
    throw new NetworkError({ code: typeof code === 'string' ? code : 'UNKNOWN', method: 'GET', url, cause: error });
  }
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    throw new Error(`the delivery stream answered HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
  }
  options.onOpen?.();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body) {
      for (const event of parser.push(decoder.decode(chunk as Buffer, { stream: true }))) {
        if (event.event !== 'attempt' || typeof event.data !== 'object' || event.data === null) continue;
        onAttempt(event.data as unknown as DeliveryAttemptNotice);
      }
    }
  } catch (error) {
    if (options.signal.aborted) return;
    throw error;
  } finally {
    response.body.destroy();
  }
}
