import type { PlatformClient } from '../client/index.js';

/** Each hold lasts this long unless renewed: a dev that dies without releasing holds its plugin's deliveries no longer. */
export const HOLD_FOR_MS = 30_000;
/** A hold is renewed this often while the plugin is not up. */
const RENEW_EVERY_MS = 10_000;

interface DeliveryHoldOptions {
  /** The client of the emulator as it now is, and the deployed plugin (null before the first deploy). */
  client: () => PlatformClient;
  pluginId: () => string | null;
  warn: (message: string) => void;
}

/**
 * The emulator's hold on the plugin's deliveries (docs/emulator-behaviour.md "Holding a plugin's deliveries"), kept by dev
 * while the plugin is not up: from the deploy before a start or restart (and from a crash) until the plugin answers again.
 * Held deliveries, new and retried, spend no attempt on "connection refused" and go once released. The hold is renewed on a
 * timer while the plugin takes long to come up. A failing call is said once (an emulator without holds, no admin
 * credential) and never stops dev: deliveries then go as they fall due.
 */
export class DeliveryHold {
  private timer: NodeJS.Timeout | undefined;
  private holding = false;
  private warned = false;
  private stopped = false;

  constructor(private readonly options: DeliveryHoldOptions) {}

  /** Whether dev holds the plugin's deliveries now. */
  get held(): boolean {
    return this.holding;
  }

  /** Holds the plugin's deliveries (again: renews) until release(). */
  async hold(): Promise<void> {
    if (this.stopped || this.options.pluginId() === null) return;
    this.holding = true;
    if (!this.timer) {
      this.timer = setInterval(() => void this.put(), RENEW_EVERY_MS);
      this.timer.unref();
    }
    await this.put();
  }

  /** The plugin answers: what waited goes at once. Also ends a hold the emulator set at its start (`holdDeliveries`). */
  async release(): Promise<void> {
    const pluginId = this.options.pluginId();
    this.holding = false;
    clearInterval(this.timer);
    this.timer = undefined;
    if (pluginId === null) return;
    await this.options
      .client()
      .emulator.holds.release(pluginId)
      .catch((error: Error) => this.failed('release', error));
  }

  /**
   * Stops renewing. `release`: end the hold now (an emulator that outlives dev); else it is left to end with the emulator,
   * so what it holds stays pending for the next start instead of failing against a plugin that is gone.
   */
  async stop(release: boolean): Promise<void> {
    const wasHolding = this.holding;
    if (release && wasHolding) await this.release();
    this.stopped = true;
    this.holding = false;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async put(): Promise<void> {
    const pluginId = this.options.pluginId();
    if (!this.holding || pluginId === null) return;
    await this.options
      .client()
      .emulator.holds.hold(pluginId, { forMs: HOLD_FOR_MS })
      .catch((error: Error) => this.failed('hold', error));
  }

  private failed(what: 'hold' | 'release', error: Error): void {
    if (this.warned || this.stopped) return;
    this.warned = true;
    this.options.warn(
      `could not ${what} the plugin's deliveries at the emulator (${error.message}): deliveries go as they fall due, also while the plugin restarts`,
    );
  }
}
