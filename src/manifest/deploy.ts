import type { PlatformClient } from '../client/index.js';
import { applyPlan, fetchRemote } from './apply.js';
import { loadManifest } from './load.js';
import { isNoop, planDeploy, type Plan, type PlanStep } from './plan.js';
import {
  findTarget,
  readProjectState,
  recordTarget,
  writeProjectState,
  type TargetIdentity,
} from './state.js';
import type { Manifest } from './types.js';
import { deployedFromHere, deploysDir, recordDeployFromHere } from './deploys-here.js';
import { EXIT, UserError } from '../errors.js';

/** How to deploy, and what to hear about on the way. */
interface DeployRequest {
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
  /** Called with the plan and notes before anything is written; throwing (drift under --strict) changes nothing. */
  review?: (plan: Plan, notes: string[]) => void;
  onStep?: (step: PlanStep) => void;
  /**
   * Asked, after the plan is shown, when the state file names a plugin on the remote platform that this machine never
   * deployed from this folder (the file may have come with a cloned project): true updates it and records it as this
   * machine's. Without it such an entry is refused, changing nothing.
   */
  confirmUnknownState?: (entry: UnknownStateEntry) => Promise<boolean>;
}

/** A plugin the state file names that no deploy from this machine and folder confirms. */
export interface UnknownStateEntry {
  pluginId: string;
  /** The plugin's name on the platform. */
  name: string;
  /** The platform's base URL. */
  where: string;
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
  /** Told after the deploy: this machine's record of it could not be written. */
  warnings: string[];
  /** The state entry no deploy from this folder on this machine recorded (a dry run reports it; a deploy asked first). */
  unconfirmedState: UnknownStateEntry | null;
}

/** Deploys for `plugsmith deploy` and `dev` to a target (what it identifies as, and the org): plans against the plugin recorded for it in `.plugsmith/state.json`, applies, records. */
export async function deployManifest(
  client: PlatformClient,
  manifestPath: string,
  target: { identity: TargetIdentity; orgId: string },
  request: DeployRequest,
): Promise<DeployOutcome> {
  const manifest = request.manifest ?? (await loadManifest(manifestPath, request.environment));
  const state = await readProjectState(manifestPath);
  const { identity, orgId } = target;
  const where = identity.storeId ? `the emulator's store (${identity.storeId})` : identity.baseUrl;
  const found = await findTarget(
    state,
    identity,
    async (pluginId) => (await fetchRemote(client, pluginId)).plugin !== null,
  );
  const remote = await fetchRemote(client, found.target?.pluginId ?? null);
  const known = remote.plugin ? found.target : undefined;
  const notes: string[] = [];
  if (found.target && !remote.plugin)
    notes.push(
      `plugin ${found.target.pluginId} recorded in .plugsmith/state.json no longer exists in ${where} (deleted, or the store was reset); creating it anew`,
    );
  // Only the remote platform's entries are checked: an emulator's are keyed by the id of the store it reports.
  const unknown: UnknownStateEntry | undefined =
    known && !identity.storeId && !(await deployedFromHere(manifestPath, found.key, known))
      ? { pluginId: known.pluginId, name: String(remote.plugin?.name ?? ''), where }
      : undefined;
  // Duplicates named by an entry nobody confirmed may be anyone's plugins: never advise deleting them.
  if (found.duplicates.length && !unknown) {
    notes.push(
      `this project also deployed ${found.duplicates.join(', ')} to ${where} (duplicates made by an older plugsmith); delete them with \`plugsmith plugins delete ID\``,
    );
  }
  if (unknown && request.dryRun)
    notes.push(
      unknownStateNote(unknown, 'a deploy asks before updating it (`--adopt-state` confirms)'),
    );
  const plan = planDeploy(manifest, remote, known?.applied ?? null, {
    allowDeletes: request.allowDeletes,
  });
  request.review?.(plan, notes);
  if (unknown && !request.dryRun && !(await request.confirmUnknownState?.(unknown)))
    throw new UserError(
      unknownStateNote(
        unknown,
        `nothing was changed. If it is this project's plugin (deployed from another folder or machine, or by a plugsmith older than this record), run again with --adopt-state; to deploy a new plugin instead, delete the file (\`rm .plugsmith/state.json\`)`,
      ),
      EXIT.USAGE,
    );
  const pluginPort = identity.storeId
    ? portFromEnvironment(manifest, request.environment ?? process.env)
    : undefined;
  const warnings: string[] = [];
  // This machine's record of a deploy to the platform; a config dir it cannot write (a read-only home in CI) costs a
  // question at the next deploy, never this deploy.
  const recordHere = async (pluginId: string): Promise<string | undefined> => {
    try {
      return await recordDeployFromHere(manifestPath, found.key, pluginId);
    } catch (error) {
      if (warnings.length === 0)
        warnings.push(
          `could not record this deploy in ${deploysDir()} (${(error as Error).message}): the next deploy from this folder asks about plugin ${pluginId} again`,
        );
      return undefined;
    }
  };
  const record = async (pluginId: string, applied = known?.applied): Promise<void> => {
    if (request.record === false) return;
    const recordId = identity.storeId ? undefined : await recordHere(pluginId);
    recordTarget(state, found, {
      pluginId,
      baseUrl: identity.baseUrl,
      orgId,
      ...(identity.storeId ? { storeId: identity.storeId } : {}),
      ...(pluginPort !== undefined ? { pluginPort } : {}),
      ...(recordId ? { recordId } : {}),
      deployedAt: new Date().toISOString(),
      applied: applied ?? { plugin: {}, actions: {}, externalEvents: {} },
    });
    await writeProjectState(manifestPath, state);
  };
  const unchanged = {
    manifest,
    plan,
    pluginId: plan.pluginId,
    plugin: remote.plugin ?? null,
    done: [],
    created: false,
    notes,
    warnings,
    unconfirmedState: unknown ?? null,
  };
  if (request.dryRun) return unchanged;
  if (isNoop(plan)) {
    // An entry of state version 1 that this deploy adopted is rewritten under its new key; one just confirmed is recorded.
    if (found.adopted.length || unknown) await record(plan.pluginId!);
    return unchanged;
  }
  const applied = await applyPlan(client, manifest, plan, orgId, {
    onPluginCreated: (id) => record(id),
    onStep: request.onStep,
  });
  await record(applied.pluginId, applied.applied);
  const created = plan.steps.some((s) => s.resource === 'plugin' && s.op === 'create');
  return {
    ...unchanged,
    pluginId: applied.pluginId,
    plugin: applied.plugin,
    done: applied.done,
    created,
  };
}

/** The PORT the manifest's `${PORT}` was expanded from, when it came from the environment (not the manifest's default). */
function portFromEnvironment(
  manifest: Manifest,
  environment: NodeJS.ProcessEnv,
): number | undefined {
  const fromEnvironment = manifest.expandedVariables.some(
    (v) => v.variable === 'PORT' && !v.fromDefault,
  );
  const port = Number(environment.PORT);
  return fromEnvironment && Number.isInteger(port) && port > 0 ? port : undefined;
}

/** What a note or refusal says of a state entry this machine never deployed from this folder, then `next`. */
function unknownStateNote(entry: UnknownStateEntry, next: string): string {
  const plugin = entry.name
    ? `plugin ${JSON.stringify(entry.name)} (${entry.pluginId})`
    : `plugin ${entry.pluginId}`;
  return `.plugsmith/state.json names ${plugin} on ${entry.where}, which no deploy from this folder on this machine recorded (the file may have come with a cloned project): ${next}`;
}
