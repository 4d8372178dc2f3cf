import { INSTANCE_ENTITY_TYPES } from './enum-values.js';
import type { InstanceEntityType, PluginType } from './enums.js';

// Where a plugin instance lives, by the kind of entity it is on: the one mapping the client, the CLI, the
// trigger, the scenario runner, `dev` and the dashboard read. Plain values (no TypeBox): the command registry
// reads it for `plugsmith --help`, and the dashboard bundles it.

/** What every part of plugsmith needs to know about installing on one kind of entity. */
export interface InstallTarget {
  /** The plugin type installed on it (one per entity). */
  pluginType: PluginType;
  /** The entity in words: in messages, CLI argument names, a manifest's install and a scenario's `on`. */
  noun: 'repository' | 'agent' | 'app';
  /** What one instance on it is called ("data provider"). */
  what: string;
  /** The CLI noun whose `add`, `list` and `remove` manage its instances (`plugsmith providers add`). */
  command: 'providers' | 'handlers' | 'apps';
  /** The client's resource of its instances (`client.dataProviders`). */
  resource: 'dataProviders' | 'agentPlugins' | 'appPlugins';
  /** The entity's collection under `/api`: its instances are at `/api/<entities>/:entityId/<instances>`. */
  entities: 'repositories' | 'agents' | 'apps';
  /** The instances' collection under one entity. */
  instances: 'data-providers' | 'plugins';
}

/** Per entity type (an instance's `entityType`): its plugin type, its words, its client resource and its route. */
export const INSTALL_TARGETS = {
  REPOSITORY: {
    pluginType: 'DATA_PROVIDER',
    noun: 'repository',
    what: 'data provider',
    command: 'providers',
    resource: 'dataProviders',
    entities: 'repositories',
    instances: 'data-providers',
  },
  AGENT: {
    pluginType: 'EVENT_HANDLER',
    noun: 'agent',
    what: 'event handler',
    command: 'handlers',
    resource: 'agentPlugins',
    entities: 'agents',
    instances: 'plugins',
  },
  APP: {
    pluginType: 'APP',
    noun: 'app',
    what: 'app plugin',
    command: 'apps',
    resource: 'appPlugins',
    entities: 'apps',
    instances: 'plugins',
  },
} as const satisfies Record<InstanceEntityType, InstallTarget>;

/** The entity in words, as a manifest's install and a scenario's `on` name it. */
export type InstallNoun = (typeof INSTALL_TARGETS)[InstanceEntityType]['noun'];

/**
 * The instances' route of one entity, under `/api`: `/repositories/repo_1/data-providers`. `entitySegment` goes
 * into the path as given: a request encodes it first (`encodeURIComponent`), a message about one need not.
 */
export function installsPath(entityType: InstanceEntityType, entitySegment: string): string {
  const target = INSTALL_TARGETS[entityType];
  return `/${target.entities}/${entitySegment}/${target.instances}`;
}

/** Whether a value is an entity type this code knows (a newer platform's record may carry another). */
export function isInstallEntityType(value: unknown): value is InstanceEntityType {
  return INSTANCE_ENTITY_TYPES.some((entityType) => entityType === value);
}

/** The entity type a plugin type is installed on (undefined for a plugin type this code does not know). */
export function entityTypeOfPluginType(pluginType: PluginType): InstanceEntityType;
export function entityTypeOfPluginType(pluginType: string): InstanceEntityType | undefined;
export function entityTypeOfPluginType(pluginType: string): InstanceEntityType | undefined {
  return INSTANCE_ENTITY_TYPES.find(
    (entityType) => INSTALL_TARGETS[entityType].pluginType === pluginType,
  );
}

/** The entity type a noun names (a scenario's `on`, a manifest install's key). */
export function entityTypeOfNoun(noun: InstallNoun): InstanceEntityType {
  const found = INSTANCE_ENTITY_TYPES.find(
    (entityType) => INSTALL_TARGETS[entityType].noun === noun,
  );
  if (!found) throw new Error(`no entity type is called ${noun}`);
  return found;
}
