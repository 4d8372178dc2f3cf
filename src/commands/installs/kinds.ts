import type { PluginType } from '../../contract/index.js';

/**
 * The three kinds of plugin installation, one per plugin type: the entity it goes on and the
 * client resource that installs it. `providers`, `handlers` and `apps` share their handlers.
 */
export interface InstallKind {
  /** The plugin type installed. */
  pluginType: PluginType;
  /** The entity, in words ("repository"). */
  entity: string;
  /** What one installation is called in messages ("data provider"). */
  what: string;
  /** The client's resource and its install method. */
  resource: 'dataProviders' | 'agentPlugins' | 'appPlugins';
}

export const INSTALL_KINDS = {
  providers: { pluginType: 'DATA_PROVIDER', entity: 'repository', what: 'data provider', resource: 'dataProviders' },
  handlers: { pluginType: 'EVENT_HANDLER', entity: 'agent', what: 'event handler', resource: 'agentPlugins' },
  apps: { pluginType: 'APP', entity: 'app', what: 'app plugin', resource: 'appPlugins' },
} as const satisfies Record<string, InstallKind>;
