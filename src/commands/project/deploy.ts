import { resolve } from 'node:path';
import type { CommandHandler } from '../types.js';
import { clientFor, orgOf } from '../context.js';
import { loadManifest } from '../../manifest/load.js';
import { isNoop, planDeploy } from '../../manifest/plan.js';
import { applyPlan } from '../../manifest/apply.js';
import { readProjectState } from '../../manifest/state.js';
import { knownTarget, recordDeploy } from '../../manifest/known-target.js';
import { identifyTarget } from '../../manifest/target.js';
import { renderDrift, renderPlan } from '../../manifest/render.js';
import { note } from '../../ui/output.js';
import { UserError, EXIT } from '../../errors.js';

interface DeployOptions {
  manifest: string;
  dryRun?: boolean;
  allowDeletes?: boolean;
  strict?: boolean;
}

/** Reads the manifest, plans against the platform, and applies (idempotently). */
const deploy: CommandHandler = async (input) => {
  const { io, global } = input;
  const o = input.options as DeployOptions;
  const manifestPath = resolve(o.manifest);
  const manifest = await loadManifest(manifestPath);
  const { client, settings } = await clientFor(input);
  try {
    const orgId = orgOf(settings);
    const identity = await identifyTarget(settings.baseUrl!, { local: settings.local });
    const state = await readProjectState(manifestPath);
    const { found, known, remote, notes } = await knownTarget(client, state, identity);
    for (const line of notes) note(io, global, line);
    const plan = planDeploy(manifest, remote, remote.plugin ? (known?.applied ?? null) : null, { allowDeletes: Boolean(o.allowDeletes) });

    const result: Record<string, unknown> = { pluginId: plan.pluginId, dryRun: Boolean(o.dryRun), changed: !isNoop(plan), plan: plan.steps.map(({ desired: _d, ...s }) => s), drift: plan.drift };
    if (!global.json) {
      io.stderr.write(renderPlan(plan));
      if (plan.drift.length) io.stderr.write(renderDrift(plan.drift));
    }
    if (plan.drift.length && o.strict) {
      if (global.json) io.stdout.write(JSON.stringify(result, null, 2) + '\n');
      throw new UserError('the platform was changed outside the manifest (see above); update plugsmith.json (`plugsmith pull` shows the remote state) or deploy without --strict to overwrite', EXIT.CONFLICT);
    }
    const record = (pluginId: string, applied = known?.applied) => recordDeploy(manifestPath, state, found, { pluginId, identity, orgId, applied });
    // An entry of state version 1 that this deploy adopted is rewritten under its new key.
    if (!o.dryRun && isNoop(plan) && found.adopted.length) await record(plan.pluginId!);
    if (o.dryRun || isNoop(plan)) {
      if (global.json) io.stdout.write(JSON.stringify(result, null, 2) + '\n');
      else if (isNoop(plan)) io.stdout.write(`No changes: ${manifest.plugin.name} (${plan.pluginId}) matches the manifest.\n`);
      else io.stdout.write('Dry run: nothing was changed.\n');
      return;
    }

    const applied = await applyPlan(client, manifest, plan, orgId, {
      onPluginCreated: (id) => record(id),
      onStep: (s) => note(io, global, `  done: ${s.op} ${s.resource} ${s.name}`),
    });
    await record(applied.pluginId, applied.applied);
    result.pluginId = applied.pluginId;
    result.webhookUrlIsVerified = applied.plugin.webhookUrlIsVerified ?? null;
    if (global.json) io.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else {
      io.stdout.write(`Deployed ${manifest.plugin.name} (${applied.pluginId}): ${applied.done.length} change(s) applied.\n`);
      if (applied.plugin.webhookUrlIsVerified === false && manifest.plugin.webhookUrl) {
        note(io, global, `The webhook is not verified yet: start your plugin, then run \`plugsmith plugins verify ${applied.pluginId}\`.`);
      }
    }
  } finally {
    await client.close();
  }
};

export default deploy;
