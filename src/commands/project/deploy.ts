import { resolve } from 'node:path';
import type { RunCommand, TargetFlags } from '../types.js';
import { orgOf, withClient } from '../context.js';
import { deployManifest } from '../../manifest/deploy.js';
import { loadManifest } from '../../manifest/load.js';
import { identifyTarget } from '../../manifest/target.js';
import { readProjectState, targetKey, type TargetIdentity } from '../../manifest/state.js';
import { renderDrift, renderPlan } from '../../manifest/render.js';
import { isNoop, type Plan } from '../../manifest/plan.js';
import type { Manifest } from '../../manifest/types.js';
import { note, printResult } from '../../ui/output.js';
import { UserError, EXIT } from '../../errors.js';
import { confirm } from '../../ui/dialogs.js';

interface DeployOptions {
  manifest: string;
  dryRun?: boolean;
  allowDeletes?: boolean;
  strict?: boolean;
  adoptState?: boolean;
}

/** The --json answer: the plan, what came of it, the environment variables the manifest used, and a PORT taken from `dev`'s record. */
function summary(
  plan: Plan,
  dryRun: boolean,
  manifest: Manifest,
  devPort: number | undefined,
): Record<string, unknown> {
  return {
    pluginId: plan.pluginId,
    dryRun,
    changed: !isNoop(plan),
    plan: plan.steps.map(({ desired: _d, ...s }) => s),
    drift: plan.drift,
    expandedVariables: manifest.expandedVariables,
    portFromDev: devPort ?? null,
  };
}

/**
 * The PORT recorded for this emulator target in `.plugsmith/state.json` (the plugin's port under `plugsmith dev`), when the
 * manifest reads PORT and the environment has none; undefined otherwise (the remote platform, PORT set, nothing recorded).
 */
async function recordedPluginPort(
  manifestPath: string,
  manifest: Manifest,
  identity: TargetIdentity,
): Promise<number | undefined> {
  const portFromDefault = manifest.expandedVariables.some(
    (v) => v.variable === 'PORT' && v.fromDefault,
  );
  if (!portFromDefault || !identity.storeId) return undefined;
  const state = await readProjectState(manifestPath);
  return state.targets[targetKey(identity)]?.pluginPort;
}

/** `plugin.webhookUrl uses ${PORT} (unset: its default): http://127.0.0.1:3000/webhook`, naming where the value came from. */
function describeVariable(
  variable: Manifest['expandedVariables'][number],
  manifest: Manifest,
  devPort: number | undefined,
): string {
  const source =
    variable.variable === 'PORT' && devPort !== undefined
      ? ` (unset: ${devPort}, the port \`plugsmith dev\` gave this project's plugin on this emulator; set PORT to choose)`
      : variable.fromDefault
        ? ' (unset: its default)'
        : ' from the environment';
  const webhookUrl =
    variable.field === 'plugin.webhookUrl' && typeof manifest.plugin.webhookUrl === 'string'
      ? `: ${manifest.plugin.webhookUrl}`
      : '';
  return `${variable.field} uses \${${variable.variable}}${source}${webhookUrl}`;
}

/** Reads the manifest, plans against the platform, and applies (idempotently). */
const deploy: RunCommand<DeployOptions & TargetFlags> = async (input) => {
  const { io, global } = input;
  const o = input.options;
  const manifestPath = resolve(o.manifest);
  const dryRun = Boolean(o.dryRun);
  let manifest = await loadManifest(manifestPath);
  await withClient(input, { token: true }, async (client, settings) => {
    const orgId = orgOf(settings);
    const identity = await identifyTarget(settings.baseUrl!, { local: settings.local });
    // Without PORT, the port `plugsmith dev` gave this project's plugin on this emulator: the manifest's default may be
    // another project's plugin.
    const devPort = await recordedPluginPort(manifestPath, manifest, identity);
    if (devPort !== undefined)
      manifest = await loadManifest(manifestPath, { ...process.env, PORT: String(devPort) });
    // One line per `${VAR}` the manifest used, so that what a borrowed manifest sends is never a surprise.
    if (!global.json) {
      for (const v of manifest.expandedVariables)
        io.stderr.write(`${describeVariable(v, manifest, devPort)}\n`);
    }
    const outcome = await deployManifest(
      client,
      manifestPath,
      { identity, orgId },
      {
        manifest,
        allowDeletes: Boolean(o.allowDeletes),
        dryRun,
        review: (plan, notes) => {
          for (const line of notes) note(io, global, line);
          if (!global.json) {
            io.stderr.write(renderPlan(plan));
            if (plan.drift.length) io.stderr.write(renderDrift(plan.drift));
          }
          if (plan.drift.length && o.strict) {
            if (global.json)
              io.stdout.write(
                JSON.stringify(summary(plan, dryRun, manifest, devPort), null, 2) + '\n',
              );
            throw new UserError(
              'the platform was changed outside the manifest (see above); update plugsmith.json (`plugsmith pull --out remote.json` writes the remote state beside it) or deploy without --strict to overwrite',
              EXIT.CONFLICT,
            );
          }
        },
        onStep: (s) => note(io, global, `  done: ${s.op} ${s.resource} ${s.name}`),
        // A state entry no deploy from here recorded: `--adopt-state`, or a yes at a terminal (the plan is shown above).
        confirmUnknownState: async (entry) => {
          if (o.adoptState) return true;
          // --json is for scripts, and its plan is not shown: the refusal names --adopt-state.
          if (!io.interactive || global.json) return false;
          const what = entry.name ? `${entry.name} (${entry.pluginId})` : entry.pluginId;
          return confirm(io, {
            flag: '--adopt-state',
            message: `.plugsmith/state.json names plugin ${what} on ${entry.where}, which no deploy from this folder on this machine recorded (a cloned project may bring the file). Update that plugin?`,
            default: false,
          });
        },
      },
    );
    const { plan } = outcome;
    for (const line of outcome.warnings) note(io, global, line);
    const result = summary(plan, dryRun, manifest, devPort);
    // A dry run names the entry a deploy would ask about (null when there is none).
    if (dryRun) result.unconfirmedState = outcome.unconfirmedState?.pluginId ?? null;
    if (dryRun || isNoop(plan)) {
      printResult(io, global, result, () =>
        isNoop(plan)
          ? `No changes: ${manifest.plugin.name} (${plan.pluginId}) matches the manifest.\n`
          : 'Dry run: nothing was changed.\n',
      );
      return;
    }
    const verified = outcome.plugin?.webhookUrlIsVerified;
    result.pluginId = outcome.pluginId;
    result.webhookUrlIsVerified = verified ?? null;
    printResult(
      io,
      global,
      result,
      () =>
        `Deployed ${manifest.plugin.name} (${outcome.pluginId}): ${outcome.done.length} change(s) applied.\n`,
    );
    if (!global.json && verified === false && manifest.plugin.webhookUrl) {
      note(
        io,
        global,
        `The webhook is not verified yet: start your plugin, then run \`plugsmith plugins verify ${outcome.pluginId}\`.`,
      );
    }
  });
};

export default deploy;
