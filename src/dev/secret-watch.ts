// A 401 or 403 from the plugin may mean its webhook secret was rotated elsewhere (`plugsmith plugins secret rotate`,
// the dashboard) and the grace of the old one is over: the plugin still signs with the secret dev started it with.
// Dev then reads the secret again, and restarts the plugin with the new one. One read at a time, at most once a second.

/** What the watch reads and does. */
export interface SecretWatchOptions {
  /** The secret the platform has now. */
  current(): Promise<string>;
  /** The secret the plugin process was started with. */
  started(): string;
  /** Starts the plugin again with `secret`. */
  restartWith(secret: string): Promise<void>;
  /** Tells a read that failed. */
  warn(message: string): void;
}

/** At most one read of the secret a second. */
const MIN_INTERVAL_MS = 1000;

export class SecretWatch {
  private reading: Promise<void> | null = null;
  private lastReadAt = 0;
  private stopped = false;

  constructor(private readonly options: SecretWatchOptions) {}

  /** An attempt was answered with `status`: a 401 or 403 reads the secret again, unless a read is under way or recent. */
  answered(status: number | null): void {
    if (status !== 401 && status !== 403) return;
    if (this.stopped || this.reading || Date.now() - this.lastReadAt < MIN_INTERVAL_MS) return;
    this.lastReadAt = Date.now();
    this.reading = this.check().finally(() => {
      this.reading = null;
    });
  }

  /** No more reads; resolves once a read under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.reading;
  }

  private async check(): Promise<void> {
    try {
      const secret = await this.options.current();
      if (secret === '' || secret === this.options.started() || this.stopped) return;
      await this.options.restartWith(secret);
    } catch (error) {
      this.options.warn(`could not read the plugin's webhook secret: ${(error as Error).message}`);
    }
  }
}
