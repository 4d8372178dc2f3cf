import type { PlatformClient } from '../client/index.js';
import { loadManifest } from '../manifest/load.js';
import { isNoop, planDeploy, type PlanStep } from '../manifest/plan.js';
import { applyPlan, fetchRemote } from '../manifest/apply.js';
import { readProjectState, writeProjectState } from '../manifest/state.js';
import type { Manifest } from '../manifest/types.js';

/** Where a dev deploy goes: the state key (the emulator's URL), the URL and the org. */
export interface DeployTarget {
  key: string;
  baseUrl: string;
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
}

/**
 * Loads the manifest and makes the target match it, as `plugsmith deploy --allow-deletes` does
 * (the emulator is the developer's own: what the manifest drops goes), recording the plugin id
 * in `.plugsmith/state.json` so `trigger` and `deploy` find it.
 */
export async function deployManifest(client: PlatformClient, manifestPath: string, target: DeployTarget, environment: NodeJS.ProcessEnv): Promise<DeployOutcome> {
  const manifest = await loadManifest(manifestPath, environment);
  const state = await readProjectState(manifestPath);
  const known = state.targets[target.key]?.baseUrl === target.baseUrl ? state.targets[target.key] : undefined;
  const remote = await fetchRemote(client, known?.pluginId ?? null);
  const plan = planDeploy(manifest, remote, remote.plugin ? (known?.applied ?? null) : null, { allowDeletes: true });
  const record = async (pluginId: string, applied = known?.applied ?? { plugin: {}, actions: {}, externalEvents: {} }) => {
    state.targets[target.key] = { pluginId, baseUrl: target.baseUrl, orgId: target.orgId, deployedAt: new Date().toISOString(), applied };
    await writeProjectState(manifestPath, state);
  };
  if (isNoop(plan)) {
    return { manifest, pluginId: plan.pluginId!, plugin: remote.plugin!, done: [], created: false };
  }
  const applied = await applyPlan(client, manifest, plan, target.orgId, { onPluginCreated: (id) => record(id) });
  await record(applied.pluginId, applied.applied);
  return { manifest, pluginId: applied.pluginId, plugin: applied.plugin, done: applied.done, created: plan.steps.some((s) => s.resource === 'plugin' && s.op === 'create') };
}
