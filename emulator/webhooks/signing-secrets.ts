import type { PluginRecord } from '../model.js';

/**
 * The secrets a delivery to this plugin is signed with at `now`: its current one, and during a
 * rotation's grace period the previous one too (one signature each), so a receiver still holding
 * the old secret keeps accepting deliveries. Without the plugin (deleted since), the queued secret.
 */
export function signingSecrets(plugin: Pick<PluginRecord, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'> | undefined, fallback: string, now = Date.now()): string[] {
  if (!plugin) return [fallback];
  const { previousWebhookSecret: previous, previousWebhookSecretExpiresAt: expiresAt } = plugin;
  if (previous && expiresAt && Date.parse(expiresAt) > now) return [plugin.webhookSecret, previous];
  return [plugin.webhookSecret];
}
