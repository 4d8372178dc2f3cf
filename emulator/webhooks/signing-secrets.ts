import type { PluginRecord } from '../model.js';

/**
 * The secrets a delivery to this plugin is signed with at `now`: its current secret, and during
 * the grace period of a rotation its previous one too (Standard Webhooks' space-separated
 * `webhook-signature` list), so a receiver still holding the old secret keeps accepting
 * deliveries until it is given the new one. Without the plugin (deleted since), the secret the
 * delivery was queued with.
 */
export function signingSecrets(plugin: Pick<PluginRecord, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'> | undefined, fallback: string, now = Date.now()): string[] {
  if (!plugin) return [fallback];
  const { previousWebhookSecret: previous, previousWebhookSecretExpiresAt: expiresAt } = plugin;
  if (previous && expiresAt && Date.parse(expiresAt) > now) return [plugin.webhookSecret, previous];
  return [plugin.webhookSecret];
}
