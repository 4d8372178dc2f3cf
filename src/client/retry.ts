import { setTimeout as delay } from 'node:timers/promises';

/** Statuses after which an idempotent read is tried again: the gateway or server is briefly unavailable. */
export const RETRY_STATUSES = new Set([502, 503, 504]);

/** Methods retried automatically; everything else could repeat a side effect. */
export const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Longest Retry-After the client waits for; a longer one is an answer, not a blip. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Longest backoff between two attempts, however many retries are configured. */
const MAX_BACKOFF_MS = 10_000;

/** Delay before retry number `attempt` (1-based): base, 2×base, 4×base… (capped) with a little jitter. */
export function backoffMs(attempt: number, baseMs: number): number {
  const exponential = Math.min(baseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}
