import type { InstanceEntityType } from '#contract';
import { installsPath } from '#contract/installs';
import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { InstanceCreate, PluginInstance } from '../types.js';

/** Plugin instances on one kind of entity, under `/api/<entities>/:entityId/<instances>` (`INSTALL_TARGETS`); installing is `install` on all three. */
export function instancesOn(api: Api, entityType: InstanceEntityType) {
  const base = (entityId: string) => `/api${installsPath(entityType, s(entityId))}`;
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

export type InstancesResource = ReturnType<typeof instancesOn>;

/** Data-provider instances on repositories, under `/api/repositories/:repositoryId/data-providers`. */
export function dataProvidersResource(api: Api) {
  return instancesOn(api, 'REPOSITORY');
}

/** Plugin instances on agents (event handlers) or apps, under `/api/{agents,apps}/:entityId/plugins`. */
export function entityPluginsResource(
  api: Api,
  entityType: Exclude<InstanceEntityType, 'REPOSITORY'>,
) {
  return instancesOn(api, entityType);
}

export type DataProvidersResource = ReturnType<typeof dataProvidersResource>;
export type EntityPluginsResource = ReturnType<typeof entityPluginsResource>;
