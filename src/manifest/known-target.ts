import type { PlatformClient } from '../client/index.js';
import { fetchRemote } from './apply.js';
import type { RemoteState } from './plan.js';
import { findTarget, recordTarget, writeProjectState, type AppliedState, type FoundTarget, type ProjectState, type TargetIdentity, type TargetState } from './state.js';

/** The project's plugin on a target, as recorded and as the platform has it. */
export interface KnownTarget {
  found: FoundTarget;
  /** The recorded entry whose plugin still exists (undefined: a deploy creates the plugin). */
  known: TargetState | undefined;
  remote: RemoteState;
  /** What to tell the user about the record (a plugin gone, duplicates from older versions). */
  notes: string[];
}

/** Looks up the project's plugin on a target (adopting entries of state version 1) and reads it from the platform. */
export async function knownTarget(client: PlatformClient, state: ProjectState, identity: TargetIdentity): Promise<KnownTarget> {
  const where = identity.storeId ? `the emulator's store (${identity.storeId})` : identity.baseUrl;
  const found = await findTarget(state, identity, async (pluginId) => (await fetchRemote(client, pluginId)).plugin !== null);
  const remote = await fetchRemote(client, found.target?.pluginId ?? null);
  const notes: string[] = [];
  if (found.target && !remote.plugin) notes.push(`plugin ${found.target.pluginId} recorded in .plugsmith/state.json no longer exists in ${where} (deleted, or the store was reset); creating it anew`);
  if (found.duplicates.length) {
    notes.push(`this project also deployed ${found.duplicates.join(', ')} to ${where} (duplicates made by an older plugsmith); delete them with \`plugsmith plugins delete ID\``);
  }
  return { found, known: remote.plugin ? found.target : undefined, remote, notes };
}

/** Writes a deploy's outcome to `.plugsmith/state.json`. */
export async function recordDeploy(
  manifestPath: string,
  state: ProjectState,
  found: FoundTarget,
  deploy: { pluginId: string; identity: TargetIdentity; orgId: string; applied?: AppliedState },
): Promise<void> {
  recordTarget(state, found, {
    pluginId: deploy.pluginId,
    baseUrl: deploy.identity.baseUrl,
    orgId: deploy.orgId,
    ...(deploy.identity.storeId ? { storeId: deploy.identity.storeId } : {}),
    deployedAt: new Date().toISOString(),
    applied: deploy.applied ?? { plugin: {}, actions: {}, externalEvents: {} },
  });
  await writeProjectState(manifestPath, state);
}
