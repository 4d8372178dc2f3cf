import type { InstanceEntityType } from '#contract';
import { INSTALL_TARGETS } from '#contract/installs';
import type { PlatformClient } from './client.js';
import type { InstancesResource } from './resources/instances.js';
import type { CallOptions } from './transport.js';
import type { InstanceCreate, PluginInstance } from './types.js';

/** The typed install/list/remove calls for one kind of entity (its resource in `INSTALL_TARGETS`). */
export function installsOn(
  client: PlatformClient,
  entityType: InstanceEntityType,
): InstancesResource {
  return client[INSTALL_TARGETS[entityType].resource];
}

/**
 * Installs a plugin on an entity. An app has no record of its own: its first installation names the org it is in, so
 * `orgId` goes into the body on an app (and only there).
 */
export function installOn(
  client: PlatformClient,
  entityType: InstanceEntityType,
  entityId: string,
  body: InstanceCreate,
  opts: { orgId?: string; options?: CallOptions } = {},
): Promise<PluginInstance> {
  const withOrg =
    entityType === 'APP' && opts.orgId !== undefined ? { ...body, orgId: opts.orgId } : body;
  return installsOn(client, entityType).install(entityId, withOrg, opts.options);
}
