import { writeFileReplacingLink } from '../../shared/project-file.js';
import { dirname, relative, resolve } from 'node:path';
import type { RunCommand, CommandInput } from '../types.js';
import { clientFor, settingsFor } from '../context.js';
import { UserError, ExitWith, EXIT } from '../../errors.js';
import { note } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { faultOptions } from '../../dev/faults.js';
import { pluginOfProject } from '../../dev/project-plugin.js';
import type { PlatformClient } from '../../client/index.js';
import { loadScenarioFile } from '../../scenario/load.js';
import type { Scenario } from '../../scenario/schema.js';
import type { ScenarioResult } from '../../scenario/results.js';
import type { MatrixCell } from '../../scenario/matrix.js';
import type { PluginStartError } from '../../scenario/start.js';
import {
  PLAIN_MARKS,
  junitReport,
  junitStartError,
  retriedLines,
  scenarioHeading,
  stepLines,
  summaryLine,
  targetLine,
  STOPPED_EMULATOR_NOTE,
  type Marks,
} from '../../scenario/report.js';
import { askedEmulator } from '../../config/emulators.js';
import { adminTokenFor } from '../../config/admin-token.js';
import { remoteProblems, runTarget, type RunTarget } from '../../scenario/target.js';
import type { ScenarioProblem } from '../../scenario/validate.js';
import type { ScenarioRunFlags } from './options.js';
import { finishWhenStdoutCloses } from '../../ui/closed-stdout.js';
import { allowedEnvNames, passedEnv } from '../../scenario/allow-env.js';
import { badFilesExit, badFilesText, givenScenarioFiles, problemsJson } from './validate.js';

/** The scenarios of the paths given, or a usage error listing every problem of every bad file. */
async function loadAll(input: CommandInput<ScenarioRunFlags>, cwd: string): Promise<Scenario[]> {
  const files = await givenScenarioFiles(input.args, cwd);
  const allowEnv = allowedEnvNames(input.options.allowEnv ?? [], process.env);
  const env = passedEnv(process.env, allowEnv);
  const loaded = await Promise.all(files.map((file) => loadScenarioFile(file, env, { allowEnv })));
  const bad = loaded.filter((l) => !l.scenario);
  if (bad.length === 0) return loaded.map((l) => l.scenario!);
  if (input.global.json) {
    input.io.stdout.write(
      `${JSON.stringify({ ok: false, files: bad.map((b) => ({ file: relative(cwd, b.file), ...problemsJson(b.problems) })) }, null, 2)}\n`,
    );
    throw new ExitWith(badFilesExit(bad));
  }
  throw new UserError(badFilesText(bad, cwd), badFilesExit(bad));
}

function marksFor(input: CommandInput<ScenarioRunFlags>): Marks {
  const style = styleFor(input.io, input.global);
  return {
    ...PLAIN_MARKS,
    dim: (s) => style.dim(s),
    red: (s) => style.red(s),
    green: (s) => style.green(s),
  };
}

/** The step kinds and expectations that use the messaging API (and so its URL and an API key). */
function usesMessaging(scenario: Scenario): boolean {
  return scenario.steps.some(
    (step) =>
      step.kind === 'conversation' ||
      step.kind === 'message' ||
      (step.kind === 'trigger' && step.body.event === 'AGENT_MESSAGE_RECEIVED') ||
      (step.kind === 'request' && step.body.api === 'messaging'),
  );
}

/**
 * On a remote platform, every reason any scenario cannot run, before anything runs: a usage error (exit 2) naming each
 * refused step with its reason and a fix, the fault options, and the messaging credentials the scenarios need.
 */
function refuseOnRemote(
  input: CommandInput<ScenarioRunFlags>,
  scenarios: Scenario[],
  cwd: string,
  messaging: { url?: string; apiKey?: string },
): void {
  const o = input.options;
  const bad: Array<{ file: string; name: string; problems: ScenarioProblem[] }> = [];
  for (const scenario of scenarios) {
    const problems = remoteProblems(scenario);
    if (problems.length)
      bad.push({
        file: scenario.file ? relative(cwd, scenario.file) || scenario.file : scenario.name,
        name: scenario.name,
        problems,
      });
  }
  const general: string[] = [];
  if (o.faults || o.faultMatrix)
    general.push(
      `${o.faults ? '--faults' : '--fault-matrix'}: fault injection is the emulator's; run without it on a remote platform`,
    );
  if (scenarios.some(usesMessaging) && (!messaging.url || !messaging.apiKey))
    general.push(
      `the scenarios talk through the messaging API: ${!messaging.url ? 'give its URL (--messaging-url, PLUGSMITH_MESSAGING_URL or the profile)' : ''}${!messaging.url && !messaging.apiKey ? ' and ' : ''}${!messaging.apiKey ? 'an API key (PLUGSMITH_API_KEY, or `plugsmith login --api-key -`)' : ''}`,
    );
  if (bad.length === 0 && general.length === 0) return;
  if (input.global.json) {
    input.io.stdout.write(
      `${JSON.stringify({ ok: false, target: 'remote', refused: bad, problems: general }, null, 2)}\n`,
    );
    throw new ExitWith(EXIT.USAGE);
  }
  const text = [
    ...general.map((line) => `  ${line}`),
    ...bad.map(
      (b) =>
        `${b.file} ("${b.name}"):\n${b.problems.map((p) => `  ${p.path}: ${p.message}\n    fix: ${p.fix}`).join('\n')}`,
    ),
  ].join('\n');
  throw new UserError(
    `not run: on a remote platform the scenarios go through its public APIs only, and ${bad.length ? `${bad.length} scenario${bad.length === 1 ? '' : 's'} need${bad.length === 1 ? 's' : ''} the emulator` : 'these options need the emulator or credentials'}; nothing was sent:\n${text}`,
    EXIT.USAGE,
  );
}

/** Where the scenarios run: the client, the project's plugin, and how to stop what was started. */
interface Target {
  client: PlatformClient;
  /** A remote platform (no local emulator): public APIs only, nothing sent to `/_emulator`. */
  remote: boolean;
  /** Its messaging URL and API key, as far as they are set. */
  messaging: { url?: string; apiKey?: string };
  projectPlugin: () => Promise<string>;
  close(): Promise<void>;
}

async function projectTarget(input: CommandInput<ScenarioRunFlags>): Promise<Target> {
  const o = input.options;
  const settings = await settingsFor(input);
  if (settings.noEmulator && !settings.baseUrl)
    throw new UserError(
      `${settings.noEmulator} (or run \`plugsmith scenario run --start\`, which starts one for the run)`,
      EXIT.NOT_FOUND,
    );
  const { client } = await clientFor(input, { token: true });
  // An emulator: a local one the CLI follows (a `login --local` profile, --emulator, a URL of a running one), or one
  // started elsewhere whose admin credential is given (PLUGSMITH_ADMIN_TOKEN). Anything else is a remote platform.
  const remote =
    !settings.local &&
    askedEmulator() === undefined &&
    (await adminTokenFor(settings.baseUrl)) === undefined;
  let plugin: Promise<string> | undefined;
  return {
    client,
    remote,
    messaging: { url: settings.messagingUrl, apiKey: settings.apiKey },
    projectPlugin: () => (plugin ??= pluginOfProject(o.plugin, o.manifest, settings)),
    close: () => client.close(),
  };
}

/** `plugsmith scenario run [paths...]` */
const run: RunCommand<ScenarioRunFlags> = async (input) => {
  // Its exit code is the verdict: `scenario run | head` in CI still fails when a scenario failed, and writes --junit.
  finishWhenStdoutCloses();
  const o = input.options;
  const cwd = process.cwd();
  if (!o.start && o.startTimeout !== undefined)
    throw new UserError(
      '--start-timeout bounds the plugin that --start starts: add --start, or drop --start-timeout',
      EXIT.USAGE,
    );
  if (!o.start && o.seed !== undefined)
    throw new UserError(
      '--seed seeds the emulator that --start starts (a running emulator has its store already: `plugsmith emulator reset` or `emulator import`): add --start, or drop --seed',
      EXIT.USAGE,
    );
  // Checked before the files are read: a bad profile is a usage error, whatever the files.
  faultOptions(o.faults, o.faultMatrix ? undefined : o.faultsSeed);
  const scenarios = await loadAll(input, cwd);

  // SIGINT and SIGTERM end the run through its cleanup (faults set back, the tag cleared, what --start started stopped),
  // instead of ending the process with the plugin orphaned and the emulator still dropping deliveries.
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) return;
    note(input.io, input.global, `${signal}: stopping the run and putting the emulator back…`);
    interrupt.abort(signal);
  };
  const interrupted = () =>
    new UserError(
      `interrupted by ${String(interrupt.signal.reason)}: the emulator's fault profile was set back${o.start ? ', and the emulator and plugin --start started were stopped' : ''}`,
      interrupt.signal.reason === 'SIGTERM' ? 143 : 130,
    );
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await runAll(input, scenarios, cwd, interrupt.signal, interrupted);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
};

/** The run itself, once the files are read and the signals handled. */
async function runAll(
  input: CommandInput<ScenarioRunFlags>,
  scenarios: Scenario[],
  cwd: string,
  signal: AbortSignal,
  interrupted: () => UserError,
): Promise<void> {
  const o = input.options;
  // Every file a scenario names stays inside the project (the manifest's folder).
  const projectRoot = dirname(resolve(cwd, o.manifest));
  const faults = faultOptions(o.faults, o.faultMatrix ? undefined : o.faultsSeed);
  // A seed chosen here, so that it is told before the run (and a failure can be run again with it).
  const { matrixSeed } = await import('../../scenario/matrix.js');
  const faultSeed = faults.faults ? (faults.faultsSeed ?? matrixSeed()) : undefined;
  const marks = marksFor(input);
  // --start stops its emulator when the run ends: a failure's delivery is named without a dashboard link, and says so.
  const reportOptions = o.start ? { deliveryNote: STOPPED_EMULATOR_NOTE } : {};
  const human = !input.global.json;
  const out = (text: string) => {
    if (human) input.io.stdout.write(text);
  };

  let target: Target;
  if (o.start) {
    const { startForScenarios, PluginStartError } = await import('../../scenario/start.js');
    const startedAt = Date.now();
    const started = await startForScenarios({
      manifestPath: resolve(cwd, o.manifest),
      env: process.env,
      log: (line) => note(input.io, input.global, line),
      ...(o.startTimeout !== undefined ? { readyTimeoutMs: o.startTimeout * 1000 } : {}),
      ...(o.seed !== undefined ? { seed: resolve(cwd, o.seed) } : {}),
    }).catch(async (error: unknown) => {
      if (error instanceof PluginStartError)
        await reportStartFailure(input, scenarios, error, Date.now() - startedAt, cwd);
      throw error;
    });
    target = {
      client: started.client,
      remote: false,
      messaging: {},
      projectPlugin: async () => started.pluginId,
      close: () => started.stop(),
    };
  } else {
    target = await projectTarget(input);
  }
  if (signal.aborted) {
    await target.close();
    throw interrupted();
  }
  const where: RunTarget = runTarget(target.remote ? 'remote' : 'emulator', target.client.baseUrl);
  if (target.remote) {
    try {
      refuseOnRemote(input, scenarios, cwd, target.messaging);
    } catch (error) {
      await target.close();
      throw error;
    }
  }
  out(targetLine(where, marks));

  const started = Date.now();
  const results: ScenarioResult[] = [];
  const cells: MatrixCell[] = [];
  try {
    const { runScenario } = await import('../../scenario/run.js');
    const { runFaultMatrix } = await import('../../scenario/matrix.js');
    const seed = o.faultMatrix ? (o.faultsSeed ?? matrixSeed()) : undefined;
    for (const scenario of scenarios) {
      const pluginId = o.plugin ?? scenario.plugin ?? (await target.projectPlugin());
      const onStep = (step: Parameters<typeof stepLines>[0]) =>
        out(stepLines(step, marks, reportOptions));
      if (seed !== undefined) {
        const matrix = await runFaultMatrix(scenario, {
          client: target.client,
          pluginId,
          seed,
          onStep,
          projectRoot,
          signal,
          dashboardLinks: !o.start,
          onCell: (cell) => {
            if (cell.skipped) return;
            out(
              `${cell.ok ? marks.green(marks.pass) : marks.red(marks.fail)} ${cell.scenario} ${marks.dim(cell.fault === 'clean' ? '(clean)' : `(under ${cell.profile})`)}\n`,
            );
          },
        });
        cells.push(...matrix);
        results.push(...matrix.flatMap((c) => (c.result ? [labelled(c)] : [])));
        continue;
      }
      out(scenarioHeading(scenario.name, scenario.file, cwd));
      if (faults.faults)
        out(
          marks.dim(
            `  under faults ${faults.faults} (seed ${faultSeed}; reproduce with --faults ${faults.faults} --faults-seed ${faultSeed})\n`,
          ),
        );
      const result = await runScenario(scenario, {
        client: target.client,
        pluginId,
        // Only the variables the person allowed (loadAll refused a scenario that declares another).
        env: passedEnv(process.env, allowedEnvNames(o.allowEnv ?? [], process.env)),
        ...(faults.faults ? { faults: { profile: faults.faults, seed: faultSeed } } : {}),
        dashboardLinks: !o.start,
        remote: target.remote,
        projectRoot,
        signal,
        onStep,
      });
      out(retriedLines(result, marks));
      results.push(result);
    }
  } catch (error) {
    if (signal.aborted) throw interrupted();
    throw error;
  } finally {
    await target.close();
  }

  const durationMs = Date.now() - started;
  if (seed_of(cells)) out(matrixText(cells, cwd, marks));
  out(summaryLine(results, durationMs, marks));
  if (o.junit) {
    // A link planted at the name is replaced, never followed.
    await writeFileReplacingLink(resolve(cwd, o.junit), junitReport(results, cwd, reportOptions));
    note(input.io, input.global, `wrote ${o.junit}`);
  }
  if (!human) {
    const report = {
      ok: results.every((r) => r.ok),
      target: where,
      durationMs,
      scenarios: results,
      ...(cells.length
        ? {
            matrix: cells.map(({ result: _result, ...cell }) => ({
              ...cell,
              failedStep: failedStepOf(_result),
            })),
          }
        : {}),
    };
    input.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  }
  if (results.some((r) => !r.ok) || cells.some((c) => !c.ok && !c.skipped)) throw new ExitWith(1);
}

/**
 * The plugin --start started did not come up, and nothing ran: the JUnit file (each scenario in error, the plugin's output in
 * system-err) and the --json report say so too; the error itself (exit code 8) is told as every error is.
 */
async function reportStartFailure(
  input: CommandInput<ScenarioRunFlags>,
  scenarios: Scenario[],
  error: PluginStartError,
  durationMs: number,
  cwd: string,
): Promise<void> {
  const o = input.options;
  if (o.junit) {
    const failure = {
      reason: error.reason,
      message: error.message,
      pluginOutput: error.pluginOutput,
    };
    await writeFileReplacingLink(
      resolve(cwd, o.junit),
      junitStartError(scenarios, failure, durationMs, cwd),
    );
    note(input.io, input.global, `wrote ${o.junit}`);
  }
  if (input.global.json) {
    const report = {
      ok: false,
      durationMs,
      start: {
        ok: false,
        exitCode: error.exitCode,
        reason: error.reason,
        fix: error.fix,
        pluginOutput: error.pluginOutput,
      },
      scenarios: [],
    };
    input.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  }
}

function seed_of(cells: MatrixCell[]): string | undefined {
  return cells[0]?.seed;
}

/** A matrix run's result named with its fault, for the summary and the JUnit report. */
function labelled(cell: MatrixCell): ScenarioResult {
  const result = cell.result!;
  return { ...result, name: `${result.name} [${cell.fault === 'clean' ? 'clean' : cell.profile}]` };
}

function failedStepOf(result: ScenarioResult | null): string | null {
  const step = result?.steps.find((s) => !s.ok && !s.skipped);
  if (!step) return null;
  const why =
    step.error ??
    (step.failures[0]
      ? `${step.failures[0].expectation}: expected ${step.failures[0].expected}, observed ${step.failures[0].observed}`
      : 'failed');
  return `step ${step.index + 1} (${step.label}): ${why}`;
}

/** Which fault broke which scenario, and the command that reproduces it. */
function matrixText(cells: MatrixCell[], cwd: string, marks: Marks): string {
  const lines = [`\nfault matrix (seed ${cells[0].seed}):`];
  const broken = cells.filter((c) => !c.ok && !c.skipped);
  const skipped = new Set(cells.filter((c) => c.skipped).map((c) => c.scenario));
  if (broken.length === 0) lines.push(`  ${marks.green('no fault broke a scenario')}`);
  for (const cell of broken) {
    const file = cell.file ? relative(cwd, cell.file) : '';
    if (cell.fault === 'clean') {
      lines.push(
        `  ${marks.red(marks.fail)} "${cell.scenario}" fails without faults: ${failedStepOf(cell.result)}`,
      );
      continue;
    }
    lines.push(
      `  ${marks.red(marks.fail)} ${cell.fault} broke "${cell.scenario}": ${failedStepOf(cell.result)}`,
      `      reproduce: plugsmith scenario run ${file} --faults ${cell.profile} --faults-seed ${cell.seed}`,
    );
  }
  for (const name of skipped)
    lines.push(`  ${marks.skip} "${name}": not run under faults (it fails clean)`);
  return `${lines.join('\n')}\n`;
}

export default run;
