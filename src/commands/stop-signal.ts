/** What a long-running command waits on: the first SIGINT or SIGTERM. */
export interface StopSignal {
  /** Aborted at the first stop signal. */
  signal: AbortSignal;
  /** Resolves at the first stop signal. */
  stopped: Promise<void>;
  /** Stops listening (a command that ends by itself calls it); idempotent. */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM so that a long-running command (emulator start, dev, logs
 * --follow) ends cleanly. Only the first signal is taken: listening stops with it, so a second
 * Ctrl+C gets Node's default and ends the process at once.
 */
export function listenForStop(): StopSignal {
  const controller = new AbortController();
  const dispose = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
  function stop() {
    dispose();
    controller.abort();
  }
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const stopped = new Promise<void>((resolveStop) => controller.signal.addEventListener('abort', () => resolveStop(), { once: true }));
  return { signal: controller.signal, stopped, dispose };
}
