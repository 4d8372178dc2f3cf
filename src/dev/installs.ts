import type { InstanceEntityType } from '#contract';
import { INSTANCE_ENTITY_TYPES } from '#contract/enum-values';
import { INSTALL_TARGETS } from '#contract/installs';
import type { PlatformClient, PluginInstance } from '../client/index.js';
import { installOn } from '../client/installs.js';
import type { Manifest, ManifestInstall } from '../manifest/types.js';

interface InstallOutcome {
  name: string;
  instanceId: string;
  created: boolean;
  entityId: string;
}

/** The entity an install goes on: its type and id (the manifest names exactly one of repository, agent, app: a target's noun). */
function entityOf(install: ManifestInstall): { entityType: InstanceEntityType; id: string } {
  const entityType =
    INSTANCE_ENTITY_TYPES.find((type) => install[INSTALL_TARGETS[type].noun]) ?? 'APP';
  return { entityType, id: install[INSTALL_TARGETS[entityType].noun]! };
}

/** Creates the manifest's missing installs and lists the other instances; any instance on the entity is the install (else events twice). */
export async function ensureInstalls(
  client: PlatformClient,
  manifest: Manifest,
  pluginId: string,
  orgId: string,
): Promise<{
  installs: InstallOutcome[];
  others: Array<{ instanceId: string; name: string; entityId: string }>;
}> {
  const existing: PluginInstance[] = await client.emulator.instancesOf(pluginId);
  const out: InstallOutcome[] = [];
  for (const install of manifest.installs) {
    const entity = entityOf(install);
    const onEntity = existing.filter((i) => i.entityId === entity.id);
    const found = onEntity.find((i) => i.name === install.name) ?? onEntity[onEntity.length - 1];
    if (found) {
      out.push({ name: install.name, instanceId: found.id, created: false, entityId: entity.id });
      continue;
    }
    const body = {
      name: install.name,
      pluginId,
      events: install.events ?? manifest.plugin.events,
      scopes: install.scopes ?? manifest.plugin.scopes,
      inputs: install.inputs ?? {},
      ...(install.eventDispatchMode ? { eventDispatchMode: install.eventDispatchMode } : {}),
    };
    const created = await installOn(client, entity.entityType, entity.id, body, { orgId });
    out.push({ name: install.name, instanceId: created.id, created: true, entityId: entity.id });
  }
  const used = new Set(out.map((o) => o.instanceId));
  const others = existing
    .filter((i) => !used.has(i.id))
    .map((i) => ({ instanceId: i.id, name: i.name, entityId: i.entityId }));
  return { installs: out, others };
}
