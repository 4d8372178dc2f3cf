import type { PluginRecord } from '../model.js';

/** The secrets to sign with at `now`: the current one, plus the previous in a rotation's grace period; the queued one if the plugin is gone. */
export function signingSecrets(
  plugin:
    | Pick<
        PluginRecord,
        'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'
      >
    | undefined,
  fallback: string,
  now = Date.now(),
): string[] {
  if (!plugin) return [fallback];
  const { previousWebhookSecret: previous, previousWebhookSecretExpiresAt: expiresAt } = plugin;
  if (previous && expiresAt && Date.parse(expiresAt) > now) return [plugin.webhookSecret, previous];
  return [plugin.webhookSecret];
}
