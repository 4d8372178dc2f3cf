import { performance } from 'node:perf_hooks';

/** One plugin's share of the delivery slots. */
export interface Lane {
  readonly pluginId: string;
  running: number;
  waiting: Fifo<() => void>;
  /** True while it is in the line of ready lanes. */
  inTurn: boolean;
  /** Attempts out with the webhook (sent, not answered yet). */
  sending: number;
  /** Since when (performance.now()) every slot of the lane has been out with its webhook, or null. */
  fullSince: number | null;
}

/**
 * How long every slot of a lane (or every slot of all) must have been out with webhooks before
 * the attempts waiting behind them count as waiting for those webhooks rather than for the process.
 */
export const STALL_MS = 200;

/**
 * The fair delivery slots: at most `concurrency` attempts in flight in all and
 * `perPluginConcurrency` per plugin, with plugins (lanes) taking free slots in turn, so a webhook
 * that hangs or refuses connections holds only its own few slots and never holds up the others.
 */
export class DeliverySlots {
  /** Each plugin's attempts running and waiting for a slot. */
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with a waiting attempt and room under their own limit, in turn. */
  private readonly ready = new Fifo<Lane>();
  private running = 0;
  /** Attempts waiting for a slot, over all lanes. */
  private waitingTotal = 0;
  /** Attempts out with their webhooks, over all lanes, and since when all slots have been out (or null). */
  private sending = 0;
  private fullSince: number | null = null;
  /** Lanes whose every slot is out with their webhook. */
  private readonly fullLanes = new Set<Lane>();

  constructor(
    private readonly concurrency: number,
    private readonly perPluginConcurrency: number,
  ) {}

  /** Waits for a slot for an attempt to a plugin's webhook: one of `concurrency`, and of its own `perPluginConcurrency`. */
  acquire(pluginId: string): Promise<Lane> {
    let lane = this.lanes.get(pluginId);
    if (!lane) this.lanes.set(pluginId, (lane = { pluginId, running: 0, waiting: new Fifo(), inTurn: false, sending: 0, fullSince: null }));
    const own = lane;
    if (own.waiting.size === 0 && own.running < this.perPluginConcurrency && this.running < this.concurrency) {
      own.running++;
      this.running++;
      return Promise.resolve(own);
    }
    return new Promise((resolve) => {
      own.waiting.push(() => resolve(own));
      this.waitingTotal++;
      this.offer(own);
    });
  }

  /**
   * Attempts waiting for a slot because the process has not got round to them, rather than for a
   * webhook: those behind a lane whose every slot has been out with its webhook for `STALL_MS`
   * (a webhook that hangs or is slow) are not counted, nor is anything while every slot has been out that long.
   */
  queued(now = performance.now()): number {
    if (this.fullSince !== null && now - this.fullSince >= STALL_MS) return 0;
    let count = this.waitingTotal;
    for (const lane of this.fullLanes) if (now - lane.fullSince! >= STALL_MS) count -= lane.waiting.size;
    return count;
  }

  /** An attempt of the lane went out to its webhook. */
  sent(lane: Lane): void {
    lane.sending++;
    this.sending++;
    if (lane.sending >= this.perPluginConcurrency && lane.fullSince === null) {
      lane.fullSince = performance.now();
      this.fullLanes.add(lane);
    }
    if (this.sending >= this.concurrency && this.fullSince === null) this.fullSince = performance.now();
  }

  /** An attempt of the lane came back from its webhook (answered, failed or cut off). */
  returned(lane: Lane): void {
    lane.sending--;
    this.sending--;
    if (lane.sending < this.perPluginConcurrency && lane.fullSince !== null) {
      lane.fullSince = null;
      this.fullLanes.delete(lane);
    }
    if (this.sending < this.concurrency) this.fullSince = null;
  }

  /** Gives a slot back; free slots go to the waiting lanes in turn. */
  release(lane: Lane): void {
    lane.running--;
    this.running--;
    this.offer(lane);
    // Free slots go to the lanes in turn: one attempt each, then to the back of the line.
    while (this.running < this.concurrency) {
      const next = this.ready.shift();
      if (!next) break;
      next.inTurn = false;
      const wake = next.waiting.shift();
      if (!wake) continue;
      this.waitingTotal--;
      next.running++;
      this.running++;
      this.offer(next);
      wake();
    }
    if (lane.running === 0 && lane.waiting.size === 0) this.lanes.delete(lane.pluginId);
  }

  /** Wakes every waiting attempt regardless of the limits (the dispatcher is closing: they end without sending). */
  wakeAll(): void {
    for (const lane of this.lanes.values()) {
      for (let wake = lane.waiting.shift(); wake; wake = lane.waiting.shift()) {
        lane.running++;
        this.running++;
        wake();
      }
    }
    this.waitingTotal = 0;
  }

  /** Puts a lane in line for a slot when it has a waiting attempt and room under its own limit. */
  private offer(lane: Lane): void {
    if (lane.inTurn || lane.waiting.size === 0 || lane.running >= this.perPluginConcurrency) return;
    lane.inTurn = true;
    this.ready.push(lane);
  }
}

/**
 * A first-in first-out queue. `Array.prototype.shift` copies the whole array once it is large,
 * and a backlog of tens of thousands of attempts made that most of the dispatcher's time.
 */
export class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
