import { useEffect, useState } from 'react';
import type { StoreEpochNotice } from '#contract';
import { stream } from './api.js';

const RECONNECT_MS = 1000;

/** What the shell knows of the store the views' records come from. */
export interface StoreEpoch {
  /** Changes whenever the store was replaced (reset, import) or the emulator restarted: views keyed on it read everything again. */
  generation: number;
  /** Why the last change happened ('reset', 'import', 'restart'), for the notice; null before any. */
  reason: string | null;
  /** False while the emulator cannot be reached. */
  reachable: boolean;
}

/**
 * Follows `GET /_emulator/stream`: its `hello` names the store's epoch, `store-replaced` a new one.
 * A different epoch (on the stream, or on the hello after a reconnect, which is how a restart
 * shows) bumps `generation`, so no view keeps records of a store that is gone.
 */
export function useStoreEpoch(enabled: boolean): StoreEpoch {
  const [state, setState] = useState<StoreEpoch>({ generation: 0, reason: null, reachable: true });
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    let epoch: string | null = null;
    const seen = (next: string, reason: string) => {
      if (epoch !== null && next !== epoch)
        setState((s) => ({ ...s, generation: s.generation + 1, reason }));
      epoch = next;
    };
    const follow = async () => {
      while (!controller.signal.aborted) {
        try {
          await stream(
            'admin',
            '/stream',
            (event) => {
              const notice = event.data as StoreEpochNotice;
              setState((s) => (s.reachable ? s : { ...s, reachable: true }));
              if (event.event === 'hello') seen(notice.epoch, 'restart');
              if (event.event === 'store-replaced') seen(notice.epoch, notice.reason ?? 'reset');
            },
            controller.signal,
          );
        } catch {
          // Reconnects below.
        }
        if (controller.signal.aborted) return;
        setState((s) => (s.reachable ? { ...s, reachable: false } : s));
        await new Promise((r) => setTimeout(r, RECONNECT_MS));
      }
    };
    void follow();
    return () => controller.abort();
  }, [enabled]);
  return state;
}
