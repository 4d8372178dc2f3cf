/** One plugin's share of the delivery slots. */
export interface Lane {
  readonly pluginId: string;
  running: number;
  /** Attempts waiting for a slot, oldest first. */
  waiting: Array<() => void>;
  /** True while it is in the line of ready lanes. */
  inTurn: boolean;
}

/** At most `concurrency` attempts in flight, `perPluginConcurrency` per plugin, plugins in turn: a hanging webhook holds only its own. */
export class DeliverySlots {
  /** Each plugin's attempts running and waiting for a slot. */
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with a waiting attempt and room under their own limit, in turn. */
  private readonly ready: Lane[] = [];
  private running = 0;

  constructor(
    private readonly concurrency: number,
    private readonly perPluginConcurrency: number,
  ) {}

  /** Waits for a slot for an attempt to a plugin's webhook: one of `concurrency`, and of its own `perPluginConcurrency`. */
  acquire(pluginId: string): Promise<Lane> {
    let lane = this.lanes.get(pluginId);
    if (!lane) {
      lane = { pluginId, running: 0, waiting: [], inTurn: false };
      this.lanes.set(pluginId, lane);
    }
    const own = lane;
    if (
      own.waiting.length === 0 &&
      own.running < this.perPluginConcurrency &&
      this.running < this.concurrency
    ) {
      own.running++;
      this.running++;
      return Promise.resolve(own);
    }
    return new Promise((resolve) => {
      own.waiting.push(() => resolve(own));
      this.offer(own);
    });
  }

  /** Gives a slot back; free slots go to the waiting lanes in turn, one attempt each, then to the back of the line. */
  release(lane: Lane): void {
    lane.running--;
    this.running--;
    this.offer(lane);
    while (this.running < this.concurrency) {
      const next = this.ready.shift();
      if (!next) break;
      next.inTurn = false;
      const wake = next.waiting.shift();
      if (!wake) continue;
      next.running++;
      this.running++;
      this.offer(next);
      wake();
    }
    if (lane.running === 0 && lane.waiting.length === 0) this.lanes.delete(lane.pluginId);
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
  }

  /** Puts a lane in line for a slot when it has a waiting attempt and room under its own limit. */
  private offer(lane: Lane): void {
    if (lane.inTurn || lane.waiting.length === 0 || lane.running >= this.perPluginConcurrency)
      return;
    lane.inTurn = true;
    this.ready.push(lane);
  }
}
