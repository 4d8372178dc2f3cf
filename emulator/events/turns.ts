import { performance } from 'node:perf_hooks';
import { Fifo } from './slots.js';

/** How a turn's budget is set: a share of the time the rest of the process had since the last turn, within bounds. */
export interface TurnBudget {
  /** Delivery time allowed per ms of other work since the last turn (0.5: deliveries get a third of a busy process). */
  share: number;
  minMs: number;
  maxMs: number;
}

/**
 * Turns of the event loop for delivery work. Every attempt's send, and the logging of its answer,
 * waits here for its turn; a turn runs waiting work in order until its budget is spent, then
 * yields to the event loop (setImmediate) and goes on in the next pass. The budget grows with the
 * time the rest of the process (the API's requests) took since the last turn, so a busy API keeps
 * most of the process while an idle one leaves deliveries nearly all of it.
 * Without it, hundreds of answers arriving together were logged and as many new attempts signed
 * and sent in one pass of the loop, and the API's requests waited hundreds of milliseconds
 * behind them: a delivery storm starved the API.
 */
export class DeliveryTurns {
  /** Answers to log go first: logging one ends an attempt and frees its slot; a send starts more work. */
  private readonly answers = new Fifo<() => void>();
  private readonly waiting = new Fifo<() => void>();
  private scheduled = false;
  private lastTurnEnd = performance.now();

  constructor(private readonly budget: TurnBudget) {}

  /**
   * Resolves when this piece of work may run, in a later pass of the loop: answers to log before
   * sends, each in order of asking.
   */
  next(kind: 'send' | 'answer' = 'send'): Promise<void> {
    return new Promise((resolve) => {
      (kind === 'answer' ? this.answers : this.waiting).push(resolve);
      this.schedule();
    });
  }

  /** How many sends wait for a turn. */
  get sends(): number {
    return this.waiting.size;
  }

  /** How many pieces of work wait for a turn. */
  get size(): number {
    return this.answers.size + this.waiting.size;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    const start = performance.now();
    const { share, minMs, maxMs } = this.budget;
    const end = start + Math.min(maxMs, Math.max(minMs, (start - this.lastTurnEnd) * share));
    // One piece at a time: the next is let go in a microtask queued after the resumed work, so
    // the synchronous part of each piece has run (and counts against the budget) before it.
    const step = (): void => {
      const now = performance.now();
      if (this.size === 0 || now >= end) {
        this.lastTurnEnd = now;
        if (this.size > 0) this.schedule();
        return;
      }
      (this.answers.shift() ?? this.waiting.shift())!();
      queueMicrotask(step);
    };
    step();
  };
}
