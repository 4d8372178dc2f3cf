import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { InstanceCreate, PluginInstance } from '../types.js';

/** Plugin instances attached to one kind of entity, under `<entityPath>/:entityId/<collection>`. */
function instancesUnder(api: Api, entityPath: string, collection: string) {
  const base = (entityId: string) => `${entityPath}/${s(entityId)}/${collection}`;
  return {
    /** Installs an instance (emits PLUGIN_INSTALLED); returns the instance. */
    add: (entityId: string, body: InstanceCreate, options?: CallOptions) => api.data<PluginInstance>('POST', base(entityId), { body, options }),
    /** Lists the entity's instances. */
    list: (entityId: string, query?: ListQuery, options?: CallOptions) =>
      api.page<PluginInstance>('GET', base(entityId), { query: serializeListQuery(query), options }),
    /** Removes an instance (OWNER only; emits PLUGIN_UNINSTALLED). */
    remove: (entityId: string, instanceId: string, options?: CallOptions) =>
      api.data<unknown>('DELETE', `${base(entityId)}/${s(instanceId)}`, { options }),
  };
}

/** Data providers: /api/repositories/:repositoryId/data-providers. */
export function dataProvidersResource(api: Api) {
  return instancesUnder(api, '/api/repositories', 'data-providers');
}

/** Event-handler instances on agents: /api/agents/:agentId/plugins (emulator contract). */
export function agentPluginsResource(api: Api) {
  const { add, list, remove } = instancesUnder(api, '/api/agents', 'plugins');
  return { attach: add, list, remove };
}

/** APP instances on apps: /api/apps/:appId/plugins (emulator contract). */
export function appPluginsResource(api: Api) {
  const { add, list, remove } = instancesUnder(api, '/api/apps', 'plugins');
  return { attach: add, list, remove };
}

export type DataProvidersResource = ReturnType<typeof dataProvidersResource>;
export type EntityPluginsResource = ReturnType<typeof agentPluginsResource>;
