import { INSTALL_ENTITIES, type InstallEntity } from '../../client/installs.js';

/** The three kinds of plugin installation, one per plugin type: the entity it goes on (src/client/installs.ts maps the rest). */
export interface InstallKind {
  /** The entity it goes on, also its name in words ("repository"). */
  entity: InstallEntity;
  pluginType: (typeof INSTALL_ENTITIES)[InstallEntity]['pluginType'];
  /** What one installation is called ("data provider"). */
  what: string;
}

const kind = (entity: InstallEntity, what: string): InstallKind => ({
  entity,
  pluginType: INSTALL_ENTITIES[entity].pluginType,
  what,
});

export const INSTALL_KINDS = {
  providers: kind('repository', 'data provider'),
  handlers: kind('agent', 'event handler'),
  apps: kind('app', 'app plugin'),
} as const satisfies Record<string, InstallKind>;
