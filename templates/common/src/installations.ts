import type { PluginInstalledEvent, PluginUninstalledEvent } from 'plugsmith/webhooks';
import type { TokenStore } from './token-store.js';

/** Keeps each new installation's token, and forgets it when the plugin is uninstalled. */
export function installationHandlers(tokens: TokenStore) {
  return {
    PLUGIN_INSTALLED: async (event: PluginInstalledEvent) => {
      const { instance, accessToken } = event.data;
      await tokens.save({
        instanceId: instance.id,
        entityType: instance.entityType,
        entityId: instance.entityId,
        scopes: instance.scopes,
        accessToken,
        installedAt: event.createdAt,
      });
    },
    PLUGIN_UNINSTALLED: async (event: PluginUninstalledEvent) => {
      await tokens.remove(event.data.instance.id);
    },
  };
}
