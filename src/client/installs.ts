import type { InstanceEntityType, PluginType } from '#contract';
import type { PlatformClient } from './client.js';
import type { InstancesResource } from './resources/instances.js';
import type { CallOptions } from './transport.js';
import type { InstanceCreate, PluginInstance } from './types.js';

/** The kinds of entity a plugin is installed on, one per plugin type. */
export type InstallEntity = 'repository' | 'agent' | 'app';

/** Per entity: the plugin type installed on it, its `entityType` on an instance, the client resource, and the route. */
export const INSTALL_ENTITIES = {
  repository: {
    pluginType: 'DATA_PROVIDER',
    entityType: 'REPOSITORY',
    resource: 'dataProviders',
    route: (id: string) => `/api/repositories/${id}/data-providers`,
  },
  agent: {
    pluginType: 'EVENT_HANDLER',
    entityType: 'AGENT',
    resource: 'agentPlugins',
    route: (id: string) => `/api/agents/${id}/plugins`,
  },
  app: {
    pluginType: 'APP',
    entityType: 'APP',
    resource: 'appPlugins',
    route: (id: string) => `/api/apps/${id}/plugins`,
  },
} as const satisfies Record<
  InstallEntity,
  {
    pluginType: PluginType;
    entityType: InstanceEntityType;
    resource: 'dataProviders' | 'agentPlugins' | 'appPlugins';
    route: (id: string) => string;
  }
>;

const ENTITIES = Object.keys(INSTALL_ENTITIES) as InstallEntity[];

/** The entity a plugin type is installed on (undefined for a type the code does not know). */
export function entityOfPluginType(pluginType: string): InstallEntity | undefined {
  return ENTITIES.find((e) => INSTALL_ENTITIES[e].pluginType === pluginType);
}

/** The entity an instance is on, from its `entityType` (undefined for a type the code does not know). */
export function entityOfInstance(
  instance: Pick<PluginInstance, 'entityType'>,
): InstallEntity | undefined {
  return ENTITIES.find((e) => INSTALL_ENTITIES[e].entityType === instance.entityType);
}

/** The typed install/list/remove calls for one kind of entity. */
export function installsOn(client: PlatformClient, entity: InstallEntity): InstancesResource {
  return client[INSTALL_ENTITIES[entity].resource];
}

/**
 * Installs a plugin on an entity. An app has no record of its own: its first installation names the org it is in, so
 * `orgId` goes into the body on an app (and only there).
 */
export function installOn(
  client: PlatformClient,
  entity: InstallEntity,
  entityId: string,
  body: InstanceCreate,
  opts: { orgId?: string; options?: CallOptions } = {},
): Promise<PluginInstance> {
  const withOrg =
    entity === 'app' && opts.orgId !== undefined ? { ...body, orgId: opts.orgId } : body;
  return installsOn(client, entity).install(entityId, withOrg, opts.options);
}
