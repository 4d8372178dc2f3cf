/**
 * Listens for the first SIGINT or SIGTERM so that a long-running command ends cleanly; listening stops
 * with it, so a second Ctrl+C ends the process at once. `dispose` stops listening (idempotent).
 */
export function listenForStop(): { signal: AbortSignal; stopped: Promise<void>; dispose(): void } {
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
