import type { PluginRecord } from '../model.js';

/**
 * The secrets a delivery is signed with at `now` (one signature each): the current one, and in a rotation's grace period the
 * previous one, so a receiver with the old secret keeps accepting. Without the plugin (deleted since), the queued secret.
 */
export function signingSecrets(plugin: Pick<PluginRecord, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'> | undefined, fallback: string, now = Date.now()): string[] {
  if (!plugin) return [fallback];
  const { previousWebhookSecret: previous, previousWebhookSecretExpiresAt: expiresAt } = plugin;
  if (previous && expiresAt && Date.parse(expiresAt) > now) return [plugin.webhookSecret, previous];
  return [plugin.webhookSecret];
}
