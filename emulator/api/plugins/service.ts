import { generateWebhookSecret } from '#shared/webhooks/signing';
import { newId, nowIso } from '../../store/ids.js';
import type { PluginRecord } from '../../model.js';
import type { WebhookSecretRotation } from '#contract';
import type { StoreDeps } from '../../context.js';
import type { WebhookDispatcher } from '../../webhooks/dispatcher.js';
import { badRequest, detail, found } from '../../errors.js';
import { removeInstanceNow, uninstallInstance } from '../instances/service.js';
import { pluginDeletions } from './deletion-service.js';

/** What the plugins feature needs: the store, and the webhook dispatcher (URL refusals, challenges). */
export interface PluginDeps extends StoreDeps {
  dispatcher: WebhookDispatcher;
}

/** A 400 for a webhook URL the dispatcher refuses (the emulator's own /_emulator or /_storage paths): no webhook is ever delivered there. */
function refuseOwnWebhookUrl(services: PluginDeps, webhookUrl: string | null | undefined): void {
  const reason = webhookUrl ? services.dispatcher.refusal(webhookUrl) : null;
  if (reason)
    throw badRequest(`Invalid webhookUrl: ${reason}`, [
      detail(
        ['webhookUrl'],
        'own_admin_path',
        "the URL of your plugin's webhook server",
        webhookUrl,
        reason,
      ),
    ]);
}

/** The fields a caller may set on a plugin. */
export type PluginInput = Partial<
  Omit<
    PluginRecord,
    | 'id'
    | 'createdAt'
    | 'updatedAt'
    | 'webhookSecret'
    | 'webhookUrlIsVerified'
    | 'previousWebhookSecret'
    | 'previousWebhookSecretExpiresAt'
  >
>;

/** Creates a plugin of an org (the caller checked the org and the role) with a new signing secret. */
export async function createPlugin(
  services: PluginDeps,
  orgId: string,
  body: PluginInput,
): Promise<PluginRecord> {
  refuseOwnWebhookUrl(services, body.webhookUrl);
  const now = nowIso();
  const plugin: PluginRecord = {
    id: newId('plg'),
    orgId,
    name: body.name!,
    description: body.description ?? '',
    type: body.type!,
    events: body.events ?? [],
    scopes: body.scopes ?? [],
    tags: body.tags ?? [],
    inputsSchema: body.inputsSchema ?? {},
    isPublic: body.isPublic ?? false,
    webhookUrl: body.webhookUrl ?? null,
    webhookUrlIsVerified: false,
    webhookSecret: generateWebhookSecret(),
    createdAt: now,
    updatedAt: now,
  };
  await services.db.plugins.put(plugin);
  return plugin;
}

/**
 * Updates a plugin; a new webhookUrl must be verified again (the same URL sent back, as an edit
 * form does, keeps the verification). A plugin deleted meanwhile is a 404, never brought back.
 */
export async function updatePlugin(
  services: PluginDeps,
  plugin: PluginRecord,
  body: PluginInput,
): Promise<PluginRecord> {
  refuseOwnWebhookUrl(services, body.webhookUrl);
  const current = found(services.db.plugins.get(plugin.id), 'plugin', plugin.id);
  const updated: PluginRecord = { ...current, ...body, updatedAt: nowIso() };
  if ('webhookUrl' in body && body.webhookUrl !== current.webhookUrl)
    updated.webhookUrlIsVerified = false;
  await services.db.plugins.put(updated);
  return updated;
}

/**
 * Gives a plugin a new webhook secret; for `graceSeconds` the previous one keeps signing beside it
 * (only one previous secret is kept). A plugin deleted meanwhile is a 404.
 */
export async function rotateWebhookSecret(
  services: PluginDeps,
  pluginId: string,
  graceSeconds: number,
  now = Date.now(),
): Promise<WebhookSecretRotation> {
  const current = found(services.db.plugins.get(pluginId), 'plugin', pluginId);
  const expiresAt =
    graceSeconds > 0 ? new Date(now + Math.round(graceSeconds * 1000)).toISOString() : null;
  const rotated: PluginRecord = {
    ...current,
    webhookSecret: generateWebhookSecret(),
    previousWebhookSecret: expiresAt ? current.webhookSecret : null,
    previousWebhookSecretExpiresAt: expiresAt,
    updatedAt: new Date(now).toISOString(),
  };
  await services.db.plugins.put(rotated);
  return { id: pluginId, webhookSecret: rotated.webhookSecret, previousSecretExpiresAt: expiresAt };
}

/** Records a webhook challenge's outcome, only if the plugin still has the URL that answered (compare-and-set). */
export async function recordWebhookVerification(
  services: PluginDeps,
  pluginId: string,
  url: string | null,
  verified: boolean,
): Promise<void> {
  const current = services.db.plugins.get(pluginId);
  if (!current || current.webhookUrl !== url || current.webhookUrlIsVerified === verified) return;
  await services.db.plugins.put({
    ...current,
    webhookUrlIsVerified: verified,
    updatedAt: nowIso(),
  });
}

/**
 * Deletes a plugin: its instances are uninstalled first (PLUGIN_UNINSTALLED is built from the plugin
 * record), then the plugin, its definitions and any instance left go in one journal line. Installs
 * are refused meanwhile; a second delete of the same plugin waits for the first.
 */
export function deletePlugin(services: PluginDeps, pluginId: string): Promise<void> {
  const running = pluginDeletions(services);
  const already = running.get(pluginId);
  if (already) return already;
  const { db } = services;
  // Marked as being deleted before any of the work starts (the work begins a microtask later).
  const run = Promise.resolve()
    .then(async () => {
      await Promise.all(
        db.instances
          .where('pluginId', pluginId)
          .map((instance) => uninstallInstance(services, instance)),
      );
      await services.store.atomically(() => {
        const now = nowIso();
        for (const instance of db.instances.where('pluginId', pluginId))
          removeInstanceNow(db, instance, now);
        for (const action of db.actions.where('pluginId', pluginId))
          void db.actions.delete(action.id);
        for (const event of db.externalEvents.where('pluginId', pluginId))
          void db.externalEvents.delete(event.id);
        void db.plugins.delete(pluginId);
      });
    })
    .finally(() => running.delete(pluginId));
  running.set(pluginId, run);
  return run;
}
