/** The first SIGINT or SIGTERM ends a long-running command cleanly; listening stops then, so a second Ctrl+C ends the process. */
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
  const stopped = new Promise<void>((resolveStop) =>
    controller.signal.addEventListener('abort', () => resolveStop(), { once: true }),
  );
  return { signal: controller.signal, stopped, dispose };
}
