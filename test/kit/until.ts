/** How long `until` waits and what it says when it gives up. */
export interface UntilOptions {
  /** The bound (default 60 s: processes on a loaded 2-core machine can take seconds each to start). */
  timeoutMs?: number;
  /** Between two probes (default 50 ms). */
  intervalMs?: number;
  /** More to say on a timeout, read then: e.g. a process's stderr. */
  explain?: () => string;
}

/** What a probe answers while it is not there yet. */
type NotYet = undefined | null | false;

/**
 * Waits for a condition instead of a fixed sleep: calls `probe` until it returns something other
 * than `undefined`, `null` or `false`, and resolves with that. A probe that throws is called again;
 * on the bound, the error names what was awaited, the last value or error, and `explain()`.
 * `options` may be the bound alone, in ms.
 */
export async function until<T>(
  what: string,
  probe: () => T | NotYet | Promise<T | NotYet>,
  options: UntilOptions | number = {},
): Promise<T> {
  const {
    timeoutMs = 60_000,
    intervalMs = 50,
    explain,
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const lastText =
        last instanceof Error ? `the last probe threw: ${last.message}` : `last: ${String(last)}`;
      const more = explain ? `\n${explain()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${lastText})${more}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
