import type { PlatformClient } from '../client/index.js';
import { applyPlan } from './apply.js';
import { knownTarget, recordDeploy } from './known-target.js';
import { loadManifest } from './load.js';
import { isNoop, planDeploy, type Plan, type PlanStep } from './plan.js';
import { readProjectState, type TargetIdentity } from './state.js';
import type { Manifest } from './types.js';

/** Where a deploy goes: the platform or emulator it identifies as, and the org. */
export interface DeployTarget {
  identity: TargetIdentity;
  orgId: string;
}

/** How to deploy, and what to hear about on the way. */
export interface DeployRequest {
  /** Delete what the platform has and the manifest no longer declares. */
  allowDeletes: boolean;
  /** Plan only: change nothing, record nothing. */
  dryRun?: boolean;
  /** False: nothing is written to `.plugsmith/state.json` (a throwaway store, as in `emulator exec`). Default true. */
  record?: boolean;
  /** The environment the manifest's `${VAR}` placeholders read (default: process.env). */
  environment?: NodeJS.ProcessEnv;
  /** The manifest, when the caller loaded it already (to refuse a bad one before contacting the platform). */
  manifest?: Manifest;
  /**
   * Called with the plan and the notes about the target before anything is written; throwing
   * here (a drift refused with --strict) stops the deploy with nothing changed.
   */
  review?: (plan: Plan, notes: string[]) => void;
  /** Called after each applied step. */
  onStep?: (step: PlanStep) => void;
}

/** What a deploy did. */
export interface DeployOutcome {
  manifest: Manifest;
  plan: Plan;
  /** The plugin's id: null only for a dry run that would create it. */
  pluginId: string | null;
  /** The plugin as the platform returned it; null when it does not exist (dry run of a create). */
  plugin: Record<string, unknown> | null;
  /** Steps applied (empty when the platform already matched, or on a dry run). */
  done: PlanStep[];
  created: boolean;
  /** Things worth telling: a recorded plugin that is gone, duplicates left by older versions. */
  notes: string[];
}

/**
 * The deploy workflow, for `plugsmith deploy` and `plugsmith dev` alike: loads the manifest,
 * finds the plugin recorded for this target in `.plugsmith/state.json`, plans against what the
 * platform holds, applies the plan (idempotently) and records the plugin id and applied state
 * under the target's identity, so `trigger`, `pull` and the next deploy find it.
 */
export async function deployManifest(client: PlatformClient, manifestPath: string, target: DeployTarget, request: DeployRequest): Promise<DeployOutcome> {
  const manifest = request.manifest ?? (await loadManifest(manifestPath, request.environment));
  const state = await readProjectState(manifestPath);
  const { found, known, remote, notes } = await knownTarget(client, state, target.identity);
  const plan = planDeploy(manifest, remote, remote.plugin ? (known?.applied ?? null) : null, { allowDeletes: request.allowDeletes });
  request.review?.(plan, notes);
  const record = (pluginId: string, applied = known?.applied): Promise<void> =>
    request.record === false ? Promise.resolve() : recordDeploy(manifestPath, state, found, { pluginId, identity: target.identity, orgId: target.orgId, applied });
  const unchanged = { manifest, plan, pluginId: plan.pluginId, plugin: remote.plugin ?? null, done: [], created: false, notes };
  if (isNoop(plan)) {
    // An entry of state version 1 that this deploy adopted is rewritten under its new key.
    if (!request.dryRun && found.adopted.length) await record(plan.pluginId!);
    return unchanged;
  }
  if (request.dryRun) return unchanged;
  const applied = await applyPlan(client, manifest, plan, target.orgId, { onPluginCreated: (id) => record(id), onStep: request.onStep });
  await record(applied.pluginId, applied.applied);
  return {
    manifest,
    plan,
    pluginId: applied.pluginId,
    plugin: applied.plugin,
    done: applied.done,
    created: plan.steps.some((s) => s.resource === 'plugin' && s.op === 'create'),
    notes,
  };
}
