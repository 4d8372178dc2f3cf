/** One plugin's hold: since when, until when, and the timer that ends it. */
interface Hold {
  since: string;
  expiresAt: number;
  timer: NodeJS.Timeout;
}

/** A plugin's hold as the admin API shows it. */
export interface HoldState {
  held: boolean;
  since: string | null;
  expiresAt: string | null;
}

/**
 * Which plugins' deliveries are held (plugsmith dev holds them while the plugin starts or restarts). Each hold
 * ends by itself after its bound unless renewed, so a caller that goes away strands nothing; `ended` is told
 * when a hold ends, released or expired, so the engine sends what waited.
 */
export class DeliveryHolds {
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly ended: (pluginId: string, why: 'released' | 'expired') => void) {}

  /** Holds a plugin's deliveries for `forMs` from now; a renewal keeps `since` and moves the end. */
  hold(pluginId: string, forMs: number): HoldState {
    const existing = this.holds.get(pluginId);
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => this.end(pluginId, 'expired'), forMs).unref();
    this.holds.set(pluginId, {
      since: existing?.since ?? new Date().toISOString(),
      expiresAt: Date.now() + forMs,
      timer,
    });
    return this.state(pluginId);
  }

  /** Ends a plugin's hold; false when it had none. */
  release(pluginId: string): boolean {
    if (!this.holds.has(pluginId)) return false;
    this.end(pluginId, 'released');
    return true;
  }

  isHeld(pluginId: string): boolean {
    return this.holds.has(pluginId);
  }

  state(pluginId: string): HoldState {
    const hold = this.holds.get(pluginId);
    if (!hold) return { held: false, since: null, expiresAt: null };
    return { held: true, since: hold.since, expiresAt: new Date(hold.expiresAt).toISOString() };
  }

  /** Drops every hold without telling (the emulator is closing: what waits stays pending for the next start). */
  clear(): void {
    for (const hold of this.holds.values()) clearTimeout(hold.timer);
    this.holds.clear();
  }

  private end(pluginId: string, why: 'released' | 'expired'): void {
    const hold = this.holds.get(pluginId);
    if (!hold) return;
    clearTimeout(hold.timer);
    this.holds.delete(pluginId);
    this.ended(pluginId, why);
  }
}
