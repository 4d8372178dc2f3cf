import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { InstanceCreate, PluginInstance } from '../types.js';

/** Plugin instances on one kind of entity, under `<entityPath>/:entityId/<collection>`; installing is `install` on all three. */
export function instancesUnder(api: Api, entityPath: string, collection: string) {
  const base = (entityId: string) => `${entityPath}/${s(entityId)}/${collection}`;
  return {
    /** Installs an instance (emits PLUGIN_INSTALLED); returns the instance. */
    install: (entityId: string, body: InstanceCreate, options?: CallOptions) =>
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

export type InstancesResource = ReturnType<typeof instancesUnder>;

/** Data-provider instances on repositories, under `/api/repositories/:repositoryId/data-providers`. */
export function dataProvidersResource(api: Api) {
  const resource = instancesUnder(api, '/api/repositories', 'data-providers');
  return {
    ...resource,
    /** @deprecated Use `install` (the same call): kept so that code written against 0.x keeps working. */
    add: resource.install,
  };
}

/** Plugin instances on agents (event handlers) or apps, under `<entityPath>/:entityId/plugins`. */
export function entityPluginsResource(api: Api, entityPath: '/api/agents' | '/api/apps') {
  const resource = instancesUnder(api, entityPath, 'plugins');
  return {
    ...resource,
    /** @deprecated Use `install` (the same call): kept so that code written against 0.x keeps working. */
    attach: resource.install,
  };
}

export type DataProvidersResource = ReturnType<typeof dataProvidersResource>;
export type EntityPluginsResource = ReturnType<typeof entityPluginsResource>;
