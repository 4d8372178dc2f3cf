import { Fifo, STALL_MS } from './slots.js';

/**
 * Admission of emitters (API calls that queue deliveries). While more attempts than `limit` wait for
 * the process's time (a slot or a turn; not those waiting for a slow webhook), emitters wait in
 * line: an API call that emits events is answered once its deliveries can be queued, so callers
 * that emit as fast as they can are held to the pace at which deliveries drain, and the other API
 * requests keep most of the process instead of queueing behind calls that each add a fan-out of
 * deliveries. `backlog` counts the waiting attempts; `queuing` is this module's share of it.
 */
export class EmitterAdmission {
  /** Emitters waiting for the backlog to shrink before they queue their deliveries. */
  private readonly emitters = new Fifo<() => void>();
  /** Deliveries of admitted emitters being written, whose attempts have not asked for a slot yet. */
  private writing = 0;
  private recheck: NodeJS.Timeout | undefined;
  /** True from letting a waiting emitter go until it runs. */
  private waking = false;
  private closed = false;

  constructor(
    private readonly limit: number,
    /** Attempts waiting for a slot (not for their webhook) or for a turn to be sent. */
    private readonly waitingAttempts: () => number,
  ) {}

  /** Runs `emit` once the emitter may queue its deliveries, then lets the next one go if there is room. */
  async run<T>(emit: () => Promise<T>): Promise<T> {
    if (!this.closed && (this.emitters.size > 0 || this.waking || this.backlog() >= this.limit)) {
      this.watch();
      await new Promise<void>((resolve) => this.emitters.push(resolve));
      this.waking = false;
    }
    try {
      return await emit();
    } finally {
      this.next();
    }
  }

  /** Counts one delivery from the start of its write until its attempt asks for a slot, so that emitters admitted together see each other. */
  async writingOne<T>(write: () => Promise<T>): Promise<T> {
    this.writing++;
    try {
      return await write();
    } finally {
      this.writing--;
    }
  }

  /** Lets the next waiting emitter go if the backlog has room (call it whenever the backlog may have shrunk). */
  next(): void {
    // One at a time: the one let go counts in the backlog once it has started writing.
    if (this.waking || this.emitters.size === 0 || (!this.closed && this.backlog() >= this.limit)) return;
    this.waking = true;
    this.emitters.shift()!();
  }

  /** Lets every waiting emitter go, and every later one at once (their deliveries stay pending for the next start, or fail with the store). */
  close(): void {
    this.closed = true;
    clearInterval(this.recheck);
    this.recheck = undefined;
    for (let go = this.emitters.shift(); go; go = this.emitters.shift()) go();
  }

  private backlog(): number {
    return this.writing + this.waitingAttempts();
  }

  /** Attempts stop counting with time alone (their webhook is slow): look again while emitters wait. */
  private watch(): void {
    if (this.recheck) return;
    this.recheck = setInterval(() => {
      if (this.emitters.size === 0) {
        clearInterval(this.recheck);
        this.recheck = undefined;
      } else this.next();
    }, STALL_MS);
    this.recheck.unref();
  }
}
