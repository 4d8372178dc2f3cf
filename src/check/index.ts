import type { PlatformClient, Plugin } from '../client/index.js';
import { decodeWebhookSecret } from '../shared/webhooks/signing.js';
import { runChecks } from './checks.js';
import { observeSideEffects } from './observer.js';
import { Prober } from './probe.js';
import type { CheckReport } from './types.js';

export { renderReport } from './render.js';

/** What `runCheck` needs: the webhook, its secret, and (for the side-effect checks) the platform where the plugin is installed. */
interface CheckOptions {
  url: string;
  secret: string;
  /** The plugin as the platform knows it; null when only a URL and a secret were given. */
  plugin: Plugin | null;
  /** A client of the local emulator, to count what the plugin writes; null without one. */
  client: PlatformClient | null;
  /** Why there is no platform (shown on the checks it skips). */
  noPlatformReason?: string;
  /** The platform's delivery timeout; default 10 s. */
  timeoutMs?: number;
}

/** Runs the readiness battery against a running webhook; never throws for what the webhook does. */
export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  // A mistyped secret is the caller's mistake, not the webhook's: fail before sending anything.
  decodeWebhookSecret(options.secret);
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const probe = new Prober(options.url, options.secret, timeoutMs);
  try {
    const setup = await observeSideEffects(
      options.client,
      options.plugin,
      options.noPlatformReason,
    );
    const { checks, latency } = await runChecks({
      probe,
      secret: options.secret,
      plugin: {
        id: options.plugin?.id ?? 'plg_check',
        orgId: String(options.plugin?.orgId ?? 'org_check'),
        type: options.plugin ? String(options.plugin.type) : null,
      },
      observer: setup.observer,
      observerReason: setup.reason ?? null,
      timeoutMs,
    });
    const count = (status: string) => checks.filter((c) => c.status === status).length;
    return {
      url: options.url,
      pluginId: options.plugin?.id ?? null,
      pluginType: options.plugin ? String(options.plugin.type) : null,
      ok: !checks.some((c) => c.required && c.status === 'failed'),
      summary: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
      latency,
      durationMs: Math.round(performance.now() - started),
      checks,
    };
  } finally {
    await probe.close();
  }
}
