import { join } from 'node:path';
import type { PluginInstalledEvent, PluginUninstalledEvent } from 'plugsmith/webhooks';
import type { PluginConfig } from './config.js';
import { InstallHistory } from './history.js';
import { installationHandlers } from './installations.js';
import { startWebhookServer, type WebhookServer } from './server.js';
import { TokenStore } from './token-store.js';

/** The running app plugin. */
export interface Plugin extends WebhookServer {
  tokens: TokenStore;
  /** Every install and uninstall, kept in DATA_DIR/history.json. */
  history: InstallHistory;
}

/**
 * An APP plugin: installed on apps, it keeps each installation's token while installed
 * (PLUGIN_INSTALLED, PLUGIN_UNINSTALLED) and records every install and uninstall.
 */
export async function startPlugin(config: PluginConfig): Promise<Plugin> {
  const tokens = new TokenStore(config.tokenFile);
  const history = new InstallHistory(join(config.dataDir, 'history.json'));
  const installations = installationHandlers(tokens);

  async function installed(event: PluginInstalledEvent): Promise<void> {
    await installations.PLUGIN_INSTALLED(event);
    const { instance } = event.data;
    await history.record({
      change: 'installed',
      instanceId: instance.id,
      appId: instance.entityId,
      orgId: instance.orgId,
      at: event.createdAt,
      eventId: event.id,
    });
  }

  async function uninstalled(event: PluginUninstalledEvent): Promise<void> {
    await installations.PLUGIN_UNINSTALLED(event);
    const { instance } = event.data;
    await history.record({
      change: 'uninstalled',
      instanceId: instance.id,
      appId: instance.entityId,
      orgId: instance.orgId,
      at: event.createdAt,
      eventId: event.id,
    });
  }

  const server = await startWebhookServer({
    port: config.port,
    host: config.host,
    secret: config.webhookSecret,
    log: config.log,
    eventShapes: config.eventShapes,
    on: { PLUGIN_INSTALLED: installed, PLUGIN_UNINSTALLED: uninstalled },
  });
  return { ...server, tokens, history };
}
