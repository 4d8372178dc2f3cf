import type { PlatformClient } from '../client/index.js';
import { loadManifest } from '../manifest/load.js';
import { isNoop, planDeploy, type PlanStep } from '../manifest/plan.js';
import { applyPlan, fetchRemote } from '../manifest/apply.js';
import { readProjectState, type TargetIdentity } from '../manifest/state.js';
import { knownTarget, recordDeploy } from '../manifest/known-target.js';
import type { Manifest } from '../manifest/types.js';

/** Where a dev deploy goes: the emulator (its store id and URL) and the org. */
export interface DeployTarget {
  identity: TargetIdentity;
  orgId: string;
}

/** What a deploy did. */
export interface DeployOutcome {
  manifest: Manifest;
  pluginId: string;
  plugin: Record<string, unknown>;
  /** Steps applied (empty when the platform already matched). */
  done: PlanStep[];
  created: boolean;
  /** Things worth telling: a recorded plugin that is gone, duplicates left by older versions. */
  notes: string[];
}

/**
 * Loads the manifest and makes the target match it, as `plugsmith deploy --allow-deletes` does
 * (the emulator is the developer's own: what the manifest drops goes), recording the plugin id
 * in `.plugsmith/state.json` under the emulator's store id so `trigger` and `deploy` find it.
 */
export async function deployManifest(client: PlatformClient, manifestPath: string, target: DeployTarget, environment: NodeJS.ProcessEnv): Promise<DeployOutcome> {
  const manifest = await loadManifest(manifestPath, environment);
  const state = await readProjectState(manifestPath);
  const { found, known, remote, notes } = await knownTarget(client, state, target.identity);
  const plan = planDeploy(manifest, remote, remote.plugin ? (known?.applied ?? null) : null, { allowDeletes: true });
  const record = (pluginId: string, applied = known?.applied) =>
    recordDeploy(manifestPath, state, found, { pluginId, identity: target.identity, orgId: target.orgId, applied });
  if (isNoop(plan)) {
    if (found.adopted.length) await record(plan.pluginId!);
    return { manifest, pluginId: plan.pluginId!, plugin: remote.plugin!, done: [], created: false, notes };
  }
  const applied = await applyPlan(client, manifest, plan, target.orgId, { onPluginCreated: (id) => record(id) });
  await record(applied.pluginId, applied.applied);
  return { manifest, pluginId: applied.pluginId, plugin: applied.plugin, done: applied.done, created: plan.steps.some((s) => s.resource === 'plugin' && s.op === 'create'), notes };
}
