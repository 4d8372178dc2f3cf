import { newInstanceToken } from '../../auth/credentials.js';
import { conflict } from '../../errors.js';
import { nowIso } from '../../store/ids.js';
import { serializeRecord } from '../../store/store.js';
import type { Db, InstanceRecord } from '../../model.js';
import type { StoreDeps } from '../../context.js';
import type { WebhookDispatcher } from '../../webhooks/dispatcher.js';
import { pluginDeletions } from '../plugins/deletion-service.js';

/** What the instances feature needs: the store, and the webhook dispatcher (PLUGIN_INSTALLED, PLUGIN_UNINSTALLED). */
export interface InstanceDeps extends StoreDeps {
  dispatcher: WebhookDispatcher;
}

/**
 * Installs a plugin instance: checked against the current state (a plugin gone or being deleted is
 * a 409), then the instance and its access token are journalled as one line, and PLUGIN_INSTALLED
 * carries the token (the only place it is shown). Resolves after the first attempt for SYNC.
 */
export async function installInstance(
  services: InstanceDeps,
  instance: InstanceRecord,
): Promise<InstanceRecord> {
  const { db } = services;
  // Checked and written in the same turn of the event loop: no delete can slip in between.
  if (!db.plugins.has(instance.pluginId))
    throw conflict(`plugin ${instance.pluginId} was deleted; it cannot be installed`);
  if (pluginDeletions(services).has(instance.pluginId))
    throw conflict(`plugin ${instance.pluginId} is being deleted; it cannot be installed`);
  // PLUGIN_INSTALLED carries the instance three levels down in its delivery record: that record must be
  // storable too, or the install would be applied and then fail (a 400 with the instance left behind).
  const delivery = { id: instance.id, event: { data: { instance } } };
  serializeRecord('deliveries', delivery, ['inputs']);
  const { record, token } = newInstanceToken({
    instanceId: instance.id,
    orgId: instance.orgId,
    name: `instance ${instance.name}`,
  });
  await services.store.atomically(() => {
    void db.instances.put(instance);
    void db.tokens.put(record);
  });
  await services.dispatcher.emitForInstances('PLUGIN_INSTALLED', [instance], {
    instance,
    accessToken: token,
  });
  return instance;
}

/** Removes an instance and revokes its live tokens, in one batch (call inside Store.atomically or alone). */
export function removeInstanceNow(db: Db, instance: InstanceRecord, now = nowIso()): void {
  void db.instances.delete(instance.id);
  for (const token of db.tokens.where('instanceId', instance.id)) {
    if (token.revokedAt === null) void db.tokens.put({ ...token, revokedAt: now, updatedAt: now });
  }
}

/**
 * Removes an instance, revokes its tokens and sends PLUGIN_UNINSTALLED; false, and nothing sent,
 * when it is already gone (two uninstalls at once, or the plugin's delete).
 */
export async function uninstallInstance(
  services: InstanceDeps,
  instance: InstanceRecord,
): Promise<boolean> {
  const { db } = services;
  if (!db.instances.has(instance.id)) return false;
  // Removal and revocation in one journal line: a crash between them cannot leave a live token.
  await services.store.atomically(() => removeInstanceNow(db, instance));
  await services.dispatcher.emitForInstances('PLUGIN_UNINSTALLED', [instance], { instance });
  return true;
}
