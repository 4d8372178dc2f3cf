import { setTimeout as sleep } from 'node:timers/promises';
import type { PlatformClient } from '../client/index.js';
import { loadManifest } from '../manifest/load.js';
import { ensureInstalls } from './installs.js';
import { accepts } from './plugin-port.js';

const PROBE_INTERVAL_MS = 200;

/** What the verifier reads from the session when it runs: the newest of each. */
export interface VerifyContext {
  client: PlatformClient;
  pluginId: string;
  /** The deployed webhook URL (null: the manifest has none). */
  webhookUrl: string | null;
  port: number | null;
  orgId: string;
  /** The environment the manifest is read with (the installs). */
  environment: NodeJS.ProcessEnv;
}

interface WebhookVerifyOptions {
  manifestPath: string;
  verifyTimeoutMs: number;
  /** Create the manifest's installs once verified. */
  installs: boolean;
  context: () => VerifyContext;
  /** Whether a process of the plugin runs, and how many crashes were seen (a watcher may outlive its server). */
  plugin: { readonly running: boolean; readonly crashes: number };
  report: { info(message: string): void; warn(message: string): void };
  /** The first time the webhook answers its challenge (and the installs are made). */
  onReady?: (webhookUrl: string) => void;
  /**
   * A check ended with the plugin up (before the installs): its webhook is verified, or answers but is not verified, or it
   * runs without answering past the timeout (said as a warning). Not called for a check cancelled by a newer one, nor while
   * the plugin is down after an exit (the next start checks again).
   */
  onUp?: () => Promise<void>;
}

/**
 * Verify-and-install: waits for the plugin to accept connections, verifies its webhook (the platform's challenge), then
 * creates the manifest's installs. One check runs at a time: a newer one (a restart, a redeploy) cancels the one before.
 */
export class WebhookVerifier {
  /** Whether the deployed webhook URL is verified (as the platform last said, or as this verifier saw). */
  verified = false;
  private current: AbortController | null = null;
  private readied = false;
  /**
   * A Node process of the plugin crashed while its command (a watcher) runs on, and the plugin has not answered since: every
   * check waits for it without a deadline, and says it is back when it answers. Cleared by a process dev starts.
   */
  private downUnderWatcher = false;

  constructor(private readonly options: WebhookVerifyOptions) {}

  /** Starts a check (cancelling the one under way); `restarted` says the plugin came back, to say so when it answers. */
  check(restarted: boolean): Promise<void> {
    this.current?.abort();
    const run = new AbortController();
    this.current = run;
    return this.whenUp(restarted, run.signal);
  }

  /** A process dev started (`restarted`: after an exit): a crash under the command it replaced no longer counts. */
  started(restarted: boolean): Promise<void> {
    this.downUnderWatcher = false;
    return this.check(restarted);
  }

  /**
   * The plugin crashed under a watcher that keeps running: waits, without a deadline, for the watcher to start it again and
   * for it to answer; then says it is back and goes on as after a restart (verified, its held deliveries released).
   */
  crashedUnderWatcher(): Promise<void> {
    this.downUnderWatcher = true;
    return this.check(true);
  }

  /** Cancels the check under way (the session stops). */
  cancel(): void {
    this.current?.abort();
  }

  private async whenUp(restarted: boolean, signal: AbortSignal): Promise<void> {
    const { webhookUrl, port } = this.options.context();
    if (!webhookUrl) {
      await this.options.onUp?.();
      return;
    }
    const plugin = this.options.plugin;
    let deadline = Date.now() + this.options.verifyTimeoutMs;
    const crashesBefore = plugin.crashes;
    // A crash under a watcher that keeps running: wait, without a deadline, for it to restart the plugin; past the deadline
    // the person is told once that its deliveries wait.
    const crashed = () => this.downUnderWatcher || plugin.crashes > crashesBefore;
    let toldStillDown = false;
    while (!(await accepts(webhookUrl))) {
      if (signal.aborted || !plugin.running) return;
      if (crashed() && !toldStillDown && Date.now() > deadline) {
        toldStillDown = true;
        this.options.report.warn(
          `the plugin has not answered at ${webhookUrl} for ${Math.round(this.options.verifyTimeoutMs / 1000)}s since it crashed: its deliveries are held until it does (save a fix to have it started again)`,
        );
      }
      if (!crashed() && Date.now() > deadline) {
        this.options.report.warn(
          `the plugin does not answer at ${webhookUrl} after ${Math.round(this.options.verifyTimeoutMs / 1000)}s: does it listen on PORT=${port}? (waiting for a change)`,
        );
        await this.options.onUp?.();
        return;
      }
      await sleep(crashed() ? 4 * PROBE_INTERVAL_MS : PROBE_INTERVAL_MS);
    }
    if (signal.aborted) return;
    const back = restarted || crashed();
    if (crashed()) deadline = Date.now() + this.options.verifyTimeoutMs;
    this.downUnderWatcher = false;
    if (back) this.options.report.info(`the plugin is back at ${webhookUrl}`);
    await this.verifyAndInstall(signal, deadline);
  }

  private async verifyAndInstall(signal: AbortSignal, deadline: number): Promise<void> {
    let delay = 300;
    while (!this.verified) {
      if (signal.aborted) return;
      const { client, pluginId, webhookUrl } = this.options.context();
      const result = await client.plugins
        .verifyWebhook(pluginId)
        .catch((error: Error) => ({ verified: false, reason: error.message }));
      if (result.verified) {
        this.verified = true;
        this.options.report.info(`webhook verified: ${webhookUrl}`);
        break;
      }
      if (Date.now() + delay > deadline) {
        this.options.report.warn(
          `the webhook is not verified: ${String(result.reason ?? 'no reason given')} (fix the plugin; it is verified again when it restarts or the manifest changes)`,
        );
        await this.options.onUp?.();
        return;
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 2000);
    }
    if (signal.aborted) return;
    // Before the installs: their PLUGIN_INSTALLED deliveries go at once.
    await this.options.onUp?.();
    if (signal.aborted) return;
    if (this.options.installs) await this.install();
    if (!this.readied && !signal.aborted) {
      this.readied = true;
      this.options.onReady?.(this.options.context().webhookUrl ?? '');
    }
  }

  private async install(): Promise<void> {
    const { client, pluginId, orgId, environment } = this.options.context();
    const report = this.options.report;
    try {
      const loaded = await loadManifest(this.options.manifestPath, environment);
      const done = await ensureInstalls(client, loaded, pluginId, orgId);
      for (const i of done.installs)
        report.info(
          i.created
            ? `installed ${i.name} (${i.instanceId})`
            : `reusing instance ${i.instanceId} on ${i.entityId} (${i.name})`,
        );
      if (done.others.length)
        report.info(
          `the plugin's other instances: ${done.others.map((i) => `${i.instanceId} on ${i.entityId} (${i.name})`).join(', ')}`,
        );
    } catch (error) {
      report.warn(`installs failed: ${(error as Error).message}`);
    }
  }
}
