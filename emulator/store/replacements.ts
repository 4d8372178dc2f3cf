/** What replaced the whole store: a reset (emptied and seeded again) or an import. */
export type ReplaceReason = 'reset' | 'import';

/** One replacement of the whole store: every record a client holds may be gone. */
export interface StoreReplaced {
  reason: ReplaceReason;
}

/** The store's replacements: how many since the emulator started, and who to tell of the next one. */
export class Replacements {
  private readonly listeners = new Set<(replaced: StoreReplaced) => void>();
  private count = 0;

  /** The store's generation: 0 at start, one more at each reset or import. */
  get generation(): number {
    return this.count;
  }

  /** Calls `listener` after each replacement; returns the unsubscribe function. */
  subscribe(listener: (replaced: StoreReplaced) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Counts a replacement and tells every listener (a failing listener stops no other). */
  announce(reason: ReplaceReason): void {
    this.count++;
    for (const listener of this.listeners) {
      try {
        listener({ reason });
      } catch {
        // A listener's failure must not fail the reset or import that is already done.
      }
    }
  }
}
