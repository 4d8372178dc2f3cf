// The one Retry-After reader (RFC 9110 semantics), shared with the client; delivery code reads it from here.
export { parseRetryAfter } from '#contract/retry-after';

/** How the emulator delivers webhooks; every field has a default suited to local development. */
export interface DeliveryOptions {
  /** Per-attempt timeout in ms (connect, answer and body); default 10 000. */
  timeoutMs?: number;
  /** Delays before each retry, in ms; its length is the number of retries. Default 1 s, 5 s, 30 s, 2 min, 10 min. */
  schedule?: number[];
  /** Multiplies every wait (schedule and Retry-After), so tests can shrink them to milliseconds; default 1. */
  timeScale?: number;
  /** Relative jitter applied to each scheduled delay (0.2 = ±20 %); default 0.2. */
  jitter?: number;
  /** Most attempts in flight at once, over all plugins; default 256. */
  concurrency?: number;
  /** Most attempts in flight at once to one plugin's webhook, default 16: all a hanging webhook can hold of `concurrency`. */
  perPluginConcurrency?: number;
  /** Most deliveries the log keeps, default 10 000; past it the oldest finished ones go, so memory and the data dir stay bounded. */
  logLimit?: number;
  /** How long a hold of a plugin's deliveries (PUT /_emulator/plugins/:pluginId/hold) lasts unless renewed, in ms; default 60 000. */
  holdMs?: number;
}

/** The options with every default filled in. */
export type ResolvedDeliveryOptions = Required<DeliveryOptions>;

export const DEFAULT_SCHEDULE_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

/** Fills in the defaults and refuses nonsense (negative waits, a zero timeout). */
export function resolveDeliveryOptions(options: DeliveryOptions = {}): ResolvedDeliveryOptions {
  const resolved = {
    timeoutMs: options.timeoutMs ?? 10_000,
    schedule: options.schedule ?? DEFAULT_SCHEDULE_MS,
    timeScale: options.timeScale ?? 1,
    jitter: options.jitter ?? 0.2,
    concurrency: options.concurrency ?? 256,
    perPluginConcurrency: options.perPluginConcurrency ?? 16,
    logLimit: options.logLimit ?? 10_000,
    holdMs: options.holdMs ?? 60_000,
  };
  if (!(resolved.timeoutMs > 0))
    throw new RangeError(`delivery.timeoutMs must be positive, got ${resolved.timeoutMs}`);
  if (!(resolved.timeScale > 0))
    throw new RangeError(`delivery.timeScale must be positive, got ${resolved.timeScale}`);
  if (!(resolved.jitter >= 0 && resolved.jitter < 1))
    throw new RangeError(`delivery.jitter must be in [0, 1), got ${resolved.jitter}`);
  for (const name of ['concurrency', 'perPluginConcurrency', 'logLimit', 'holdMs'] as const) {
    if (!(Number.isInteger(resolved[name]) && resolved[name] > 0))
      throw new RangeError(`delivery.${name} must be a positive integer`);
  }
  if (!resolved.schedule.every((ms) => Number.isFinite(ms) && ms >= 0))
    throw new RangeError('delivery.schedule must hold non-negative numbers of ms');
  return resolved;
}

/** Longest wait a Retry-After may impose (before scaling), so a bogus header cannot park a delivery for days. */
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** The wait before retry number `attemptsDone`, null once the schedule is used up; a Retry-After replaces the jittered delay. */
export function retryDelay(
  options: ResolvedDeliveryOptions,
  attemptsDone: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number | null {
  if (attemptsDone < 1 || attemptsDone > options.schedule.length) return null;
  const base =
    retryAfterMs !== undefined
      ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)
      : options.schedule[attemptsDone - 1] * (1 + (random() * 2 - 1) * options.jitter);
  return Math.max(0, Math.round(base * options.timeScale));
}
