/**
 * For crash tests only: with PLUGSMITH_STORE_PAUSE=<step> in its environment, the store stops for
 * good when it reaches that step (after printing `paused <step>` to stderr), so that a test can
 * SIGKILL the process there. Steps: import-applied, import-written (written, not yet fdatasync'ed),
 * import-journaled, compact-rotated, compact-written, compact-renamed.
 */
const STEP = process.env.PLUGSMITH_STORE_PAUSE;

export function pauseAt(step: string): Promise<void> {
  if (step !== STEP) return Promise.resolve();
  process.stderr.write(`paused ${step}\n`);
  return new Promise(() => undefined);
}

/** Whether a test pauses the store at `step`. */
export function pausesAt(step: string): boolean {
  return step === STEP;
}
