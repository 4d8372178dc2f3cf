import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { InstanceCreate, PluginInstance } from '../types.js';

/** Plugin instances attached to one kind of entity, under `<entityPath>/:entityId/<collection>`. */
export function instancesUnder(api: Api, entityPath: string, collection: string) {
  const base = (entityId: string) => `${entityPath}/${s(entityId)}/${collection}`;
  return {
    /** Installs an instance (emits PLUGIN_INSTALLED); returns the instance. */
    add: (entityId: string, body: InstanceCreate, options?: CallOptions) =>
      api.data<PluginInstance>('POST', base(entityId), { body, options }),
    /** Lists the entity's instances. */
    list: (entityId: string, query?: ListQuery, options?: CallOptions) =>
      api.page<PluginInstance>('GET', base(entityId), {
        query: serializeListQuery(query),
        options,
      }),
    /** Removes an instance (OWNER only; emits PLUGIN_UNINSTALLED). */
    remove: (entityId: string, instanceId: string, options?: CallOptions) =>
      api.data<unknown>('DELETE', `${base(entityId)}/${s(instanceId)}`, { options }),
  };
}

/** Plugin instances on agents (event handlers) or apps, under `<entityPath>/:entityId/plugins`; installing is `attach`. */
export function entityPluginsResource(api: Api, entityPath: '/api/agents' | '/api/apps') {
  const { add, list, remove } = instancesUnder(api, entityPath, 'plugins');
  return { attach: add, list, remove };
}

export type DataProvidersResource = ReturnType<typeof instancesUnder>;
export type EntityPluginsResource = ReturnType<typeof entityPluginsResource>;
