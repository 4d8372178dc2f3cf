import type { PluginType } from '../../shared/contract/index.js';

/** The three kinds of plugin installation, one per plugin type: the entity it goes on and the client resource that installs it. */
export interface InstallKind {
  pluginType: PluginType;
  /** In words ("repository"). */
  entity: string;
  /** What one installation is called ("data provider"). */
  what: string;
  resource: 'dataProviders' | 'agentPlugins' | 'appPlugins';
}

export const INSTALL_KINDS = {
  providers: {
    pluginType: 'DATA_PROVIDER',
    entity: 'repository',
    what: 'data provider',
    resource: 'dataProviders',
  },
  handlers: {
    pluginType: 'EVENT_HANDLER',
    entity: 'agent',
    what: 'event handler',
    resource: 'agentPlugins',
  },
  apps: { pluginType: 'APP', entity: 'app', what: 'app plugin', resource: 'appPlugins' },
} as const satisfies Record<string, InstallKind>;
