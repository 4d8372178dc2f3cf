import { issueInstanceToken } from '../auth/credentials.js';
import { nowIso } from '../store/ids.js';
import type { InstanceRecord } from '../model.js';
import type { Services } from '../services.js';

/**
 * Stores a new instance, issues its installation access token and sends PLUGIN_INSTALLED with it
 * (the only place the token is ever shown). Resolves after the first attempt for a SYNC instance.
 */
export async function installInstance(services: Services, instance: InstanceRecord): Promise<InstanceRecord> {
  const { db } = services;
  await db.instances.put(instance);
  const { token } = await issueInstanceToken(db, { instanceId: instance.id, orgId: instance.orgId, name: `instance ${instance.name}` });
  await services.events.emitForInstances('PLUGIN_INSTALLED', [instance], { instance, accessToken: token });
  return instance;
}

/** Removes an instance, revokes its tokens at once and sends PLUGIN_UNINSTALLED (call before deleting the plugin). */
export async function uninstallInstance(services: Services, instance: InstanceRecord): Promise<void> {
  const { db } = services;
  const now = nowIso();
  // Removal and revocation in one journal line: a crash between them cannot leave a live token.
  await services.store.atomically(() => {
    void db.instances.delete(instance.id);
    for (const token of db.tokens.where('instanceId', instance.id)) {
      if (token.revokedAt === null) void db.tokens.put({ ...token, revokedAt: now, updatedAt: now });
    }
  });
  await services.events.emitForInstances('PLUGIN_UNINSTALLED', [instance], { instance });
}

/** Uninstalls every instance of a plugin (when the plugin is deleted). */
export async function uninstallPluginInstances(services: Services, pluginId: string): Promise<void> {
  await Promise.all(services.db.instances.where('pluginId', pluginId).map((instance) => uninstallInstance(services, instance)));
}
