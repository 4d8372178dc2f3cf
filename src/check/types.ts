/** How one check ended: `skipped` when what it needs is not there (it says what to do to run it). */
export type CheckStatus = 'passed' | 'failed' | 'skipped';

/** One check of `plugsmith check`, as printed and as `--json` gives it. */
export interface CheckResult {
  /** Stable name, e.g. `wrong-signature`. */
  id: string;
  /** What the webhook must do, in a sentence. */
  title: string;
  /** A required check that fails makes the whole run fail. */
  required: boolean;
  status: CheckStatus;
  /** What was sent to the webhook. */
  sent: string;
  /** What came back (and, where the platform can see it, what the webhook did). */
  received: string;
  /** How to fix a failure, or why a check was skipped; null when it passed. */
  fix: string | null;
}

/** Answer times over the burst, in milliseconds. */
export interface LatencyReport {
  requests: number;
  concurrency: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** The platform's delivery timeout that every answer must beat. */
  timeoutMs: number;
}

/** The outcome of a whole run. */
export interface CheckReport {
  url: string;
  pluginId: string | null;
  pluginType: string | null;
  /** True when no required check failed. */
  ok: boolean;
  summary: { passed: number; failed: number; skipped: number };
  latency: LatencyReport;
  durationMs: number;
  checks: CheckResult[];
}
