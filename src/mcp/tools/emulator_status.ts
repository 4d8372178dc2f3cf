import { z } from 'zod';
import { pluginIdOf } from '../connection.js';
import { result } from '../shape.js';
import { anyObject, defineTool, READ_ONLY } from '../tool.js';

export const emulatorStatus = defineTool({
  name: 'emulator_status',
  title: 'Emulator status',
  description:
    "The project's local emulator: its URLs, the project folder, each plugin (type, webhook URL, whether the webhook is verified, events) with its instances, and the fault profile in force. Call this first: the plugin and instance ids it lists are what the other tools take. Credentials are never shown.",
  inputSchema: {},
  outputSchema: {
    url: z.string(),
    messagingUrl: z.string().nullable(),
    project: z.string().nullable(),
    orgId: z.string().nullable(),
    projectPluginId: z.string().nullable(),
    plugins: z.array(anyObject),
    faults: anyObject,
  },
  annotations: READ_ONLY,
  async run(_args, connection) {
    const { client, settings } = connection;
    const orgId = settings.orgId ?? null;
    const projectPluginId = await pluginIdOf(connection, undefined).catch(() => null);
    const page = orgId ? await client.plugins.listByOrg(orgId, { limit: 100 }) : { data: [] };
    const plugins = await Promise.all(
      page.data.map(async (plugin) => {
        const instances = await client.emulator.instancesOf(plugin.id);
        return {
          id: plugin.id,
          name: plugin.name,
          type: plugin.type,
          webhookUrl: plugin.webhookUrl,
          webhookUrlIsVerified: plugin.webhookUrlIsVerified,
          events: plugin.events,
          scopes: plugin.scopes,
          ofThisProject: plugin.id === projectPluginId,
          instances: instances.map((instance) => ({
            id: instance.id,
            entityType: instance.entityType,
            entityId: instance.entityId,
            events: instance.events,
          })),
        };
      }),
    );
    const faults = await client.emulator.faults.get();
    const status = {
      url: settings.baseUrl ?? '',
      messagingUrl: settings.messagingUrl ?? null,
      project: connection.project,
      orgId,
      projectPluginId,
      plugins,
      faults: faults as Record<string, unknown>,
    };
    const summary = `Emulator at ${status.url}; ${plugins.length} plugin(s)${projectPluginId ? `, this project's is ${projectPluginId}` : ''}; faults ${faults.on ? `on (${faults.profile})` : 'off'}.`;
    return result(summary, status, connection.credentials);
  },
});
