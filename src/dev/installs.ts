import type { PlatformClient, PluginInstance } from '../client/index.js';
import type { Manifest, ManifestInstall } from '../manifest/types.js';
import type { EmulatorAdmin } from './emulator-admin.js';

/** One install of the manifest and whether this run created it. */
export interface InstallOutcome {
  name: string;
  instanceId: string;
  created: boolean;
}

function entityOf(install: ManifestInstall): { kind: 'repository' | 'agent' | 'app'; id: string } {
  if (install.repository) return { kind: 'repository', id: install.repository };
  if (install.agent) return { kind: 'agent', id: install.agent };
  return { kind: 'app', id: install.app! };
}

/**
 * Creates the manifest's installs that the plugin does not have yet (matched by name and entity),
 * once its webhook is verified. Existing ones are left alone: their tokens stay valid.
 */
export async function ensureInstalls(client: PlatformClient, admin: EmulatorAdmin, manifest: Manifest, pluginId: string, orgId: string): Promise<InstallOutcome[]> {
  if (manifest.installs.length === 0) return [];
  const existing: PluginInstance[] = await admin.instancesOf(pluginId);
  const out: InstallOutcome[] = [];
  for (const install of manifest.installs) {
    const entity = entityOf(install);
    const found = existing.find((i) => i.name === install.name && i.entityId === entity.id);
    if (found) {
      out.push({ name: install.name, instanceId: found.id, created: false });
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
    const created =
      entity.kind === 'repository'
        ? await client.dataProviders.add(entity.id, body)
        : entity.kind === 'agent'
          ? await client.agentPlugins.attach(entity.id, body)
          : await client.appPlugins.attach(entity.id, { ...body, orgId });
    out.push({ name: install.name, instanceId: created.id, created: true });
  }
  return out;
}
