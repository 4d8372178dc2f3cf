import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createClient,
  type ClientOptions,
  type Delivery,
  type PlatformClient,
} from '../client/index.js';
import type { PluginOutputLine } from '#contract/plugin-output';
import type {
  ExpectationContext,
  ExpectationFailure,
  ResultFields,
  RunContext,
  StepScope,
  StepWatch,
} from './context.js';
import { checkExpectation, describeExpectation } from './expectations/index.js';
import { filesBefore } from './expectations/file.js';
import { watchStep } from './expectations/watch.js';
import { loadScenarioFile } from './load.js';
import { deliveryOutput, outputCursor, outputSince } from './plugin-output.js';
import { EnvScrubber, RunReferences } from './references.js';
import { retriedDeliveries, type RetriedDelivery } from './retries.js';
import type { Scenario, Step } from './schema.js';
import { runStep, stepLabel } from './steps/index.js';
import {
  remoteProblems,
  runTarget,
  ScenarioRefused,
  uncheckableOnRemote,
  type RunTarget,
  type UncheckedExpectation,
} from './target.js';
import { problemText, validateScenario, type ScenarioProblem } from './validate.js';

// The scenario runner: a library function with structured results, used by `plugsmith scenario
// run`, by `runScenario` of plugsmith/emulator and by whatever else drives scenarios. Every step
// goes through the platform's APIs (the client), every check reads what the plugin did there.
//
// This file is the loop: for each step it expands the references (references.ts), does the step
// with its kind's module (steps/), checks each expectation with its kind's module (expectations/,
// which wait on the emulator's streams: expectations/watch.ts) and reports. A failed step skips the
// rest; an abort ends the run at once; either way the emulator is put back as it was.

export type { ExpectationFailure } from './context.js';

export interface StepResult {
  index: number;
  id?: string;
  kind: Step['kind'];
  /** The step in words: `message "hi" in conv_1`. */
  label: string;
  ok: boolean;
  /** Not run: an earlier step failed. */
  skipped: boolean;
  durationMs: number;
  /** What `${id.field}` can name. */
  result: Record<string, unknown>;
  failures: ExpectationFailure[];
  /** The step itself could not be done (an API error): its message. */
  error?: string;
  /** The deliveries the step caused, by id (none on a remote platform, which shows no delivery log). */
  deliveries: string[];
  /** Expectations this target cannot observe (a delivery's status on a remote platform): neither passed nor failed. */
  unchecked?: UncheckedExpectation[];
}

export interface ScenarioResult {
  name: string;
  file?: string;
  ok: boolean;
  durationMs: number;
  pluginId: string;
  /** The platform the scenario played on: the emulator, or a remote platform through its public APIs only. */
  target: RunTarget;
  steps: StepResult[];
  /** The fault profile the run was under, and its seed (null: none). */
  faults: { profile: string; seed: string } | null;
  /**
   * The deliveries the plugin refused (not a 2xx, or no answer) and that were tried again: a scenario makes the retry at
   * once, so a run can pass with them; empty when every delivery was taken at its first attempt.
   */
  retried: RetriedDelivery[];
  /**
   * What the plugin wrote while the scenario ran (captured by dev or `--start`, at most the newest 1,000 lines): untrusted
   * text. Absent where the target keeps no plugin output (a plugin plugsmith did not start, a remote platform).
   */
  pluginOutput?: PluginOutputLine[];
}

/** An emulator as `startEmulator()` returns it (its URLs and credentials). */
export interface EmulatorLike {
  url: string;
  messagingUrl: string;
  token: string | null;
  apiKey: string | null;
  adminToken?: string;
}

/** Where to run: a client, an emulator from `startEmulator()`, or the URLs and credentials to make a client of. */
export type ScenarioTarget =
  | { client: PlatformClient; emulator?: undefined }
  | { emulator: EmulatorLike; client?: undefined }
  | (Pick<ClientOptions, 'baseUrl' | 'messagingUrl' | 'token' | 'apiKey' | 'adminToken'> & {
      client?: undefined;
      emulator?: undefined;
    });

function clientOf(target: ScenarioTarget): PlatformClient {
  if (target.client) return target.client;
  if (target.emulator) {
    const emu = target.emulator;
    return createClient({
      baseUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      token: emu.token ?? undefined,
      apiKey: emu.apiKey ?? undefined,
      adminToken: emu.adminToken,
      userAgent: 'plugsmith-scenario',
    });
  }
  const { baseUrl, messagingUrl, token, apiKey, adminToken } = target;
  return createClient({
    baseUrl,
    messagingUrl,
    token,
    apiKey,
    adminToken,
    userAgent: 'plugsmith-scenario',
  });
}

export type RunScenarioOptions = ScenarioTarget & {
  /** The plugin under test (default: the scenario's `plugin`). */
  pluginId?: string;
  /** For `${env.NAME}` of the names the scenario declares (default process.env); values never appear in results. */
  env?: Record<string, string | undefined>;
  /** Run the whole scenario under this fault profile (restored afterwards). */
  faults?: { profile: string; seed?: string };
  /** Told of each step as it ends. */
  onStep?: (step: StepResult) => void;
  /** Default wait of expectations without `withinMs` (default 5000 ms). */
  defaultWithinMs?: number;
  /**
   * Link each failure's delivery in the dashboard. Default: on for a target given by URL or client (a running emulator), off
   * for `{ emulator }`, which lives in this process and is closed with it (a test's), so the link would lead nowhere.
   */
  dashboardLinks?: boolean;
  /**
   * The project folder (default: the working directory): every file a scenario names (`addFile.path`) must lie inside it,
   * links followed, and so must the scenario file's own folder, which relative paths start from.
   */
  projectRoot?: string;
  /**
   * Aborting it (SIGINT, SIGTERM) ends the run at once: the step under way is left, the emulator's fault profile is set back
   * and the scenario tag cleared, and runScenario throws {@link ScenarioInterrupted}.
   */
  signal?: AbortSignal;
  /**
   * Play on a remote platform, through its public APIs only: nothing goes to `/_emulator`. The steps that need the emulator
   * are refused before anything runs ({@link ScenarioRefused}); expectations only the emulator can observe are reported as
   * unchecked, never as passed.
   */
  remote?: boolean;
};

/** A run ended by its abort signal, after the emulator was put back as it was (faults, scenario tag). */
export class ScenarioInterrupted extends Error {
  constructor(readonly scenario: string) {
    super(`scenario "${scenario}" was interrupted; the emulator's fault profile was set back`);
    this.name = 'ScenarioInterrupted';
  }
}

/** A scenario file that cannot run: every problem in it. */
export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ScenarioProblem[],
  ) {
    super(
      `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problemText(problems)}`,
    );
  }
}

/** Runs one scenario (a file path, a parsed file, or a validated scenario) against an emulator and the plugin; never throws for a failed expectation. */
export async function runScenario(
  scenario: string | Scenario | Record<string, unknown>,
  options: RunScenarioOptions,
): Promise<ScenarioResult> {
  const env = options.env ?? process.env;
  const checked = await scenarioOf(scenario, env);
  const pluginId = options.pluginId ?? checked.plugin;
  if (!pluginId)
    throw new TypeError(
      `scenario "${checked.name}": which plugin? give pluginId, or "plugin" in the file`,
    );
  if (options.remote) {
    const refused = remoteProblems(checked);
    if (options.faults)
      refused.push({
        path: 'faults',
        message: 'fault injection is the emulator’s: a remote platform has no fault profile',
        fix: 'run without --faults, or run the scenario on the emulator',
      });
    if (refused.length) throw new ScenarioRefused(checked.name, refused);
  }
  const owned = options.client === undefined;
  const client = clientOf(options);
  try {
    const runner = new Runner(client, checked, pluginId, env, options);
    return await runner.run();
  } finally {
    if (owned) await client.close();
  }
}

async function scenarioOf(
  input: string | Scenario | Record<string, unknown>,
  env: Record<string, string | undefined>,
): Promise<Scenario> {
  if (typeof input === 'string') {
    const loaded = await loadScenarioFile(resolve(input), env);
    if (!loaded.scenario) throw new ScenarioFileError(input, loaded.problems);
    return loaded.scenario;
  }
  const steps = (input as { steps?: unknown[] }).steps;
  // Already validated (its steps have a kind): as it is.
  if (
    Array.isArray(steps) &&
    steps.every((s) => typeof (s as Step).kind === 'string' && 'body' in (s as object))
  )
    return input as Scenario;
  const checked = validateScenario(input, env);
  if (!checked.ok) throw new ScenarioFileError(String(input.name ?? 'scenario'), checked.problems);
  return checked.scenario;
}

class Runner {
  private readonly references: RunReferences;
  /** The environment values the steps expanded: replaced by `${env.NAME}` in every result. */
  private readonly scrubber = new EnvScrubber();
  /** A remote platform: public APIs only, nothing sent to `/_emulator`. */
  private readonly remote: boolean;
  /** What the steps and expectations share; its plugin is read when the run begins. */
  private context!: RunContext;
  /** When each step began (ISO): a retried delivery is told with its step. */
  private readonly stepStarts: string[] = [];

  constructor(
    private readonly client: PlatformClient,
    private readonly scenario: Scenario,
    private readonly pluginId: string,
    env: Record<string, string | undefined>,
    private readonly options: RunScenarioOptions,
  ) {
    this.remote = options.remote === true;
    this.references = new RunReferences(scenario.env ?? [], env, this.scrubber);
  }

  /** Waits `ms`, or less when the run is aborted (then throws): a step left by an abort must not keep the process alive. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.options.signal });
  }

  async run(): Promise<ScenarioResult> {
    const started = Date.now();
    this.context = {
      client: this.client,
      pluginId: this.pluginId,
      plugin: await this.client.plugins.get(this.pluginId),
      remote: this.remote,
      within: this.options.defaultWithinMs ?? 5000,
      ownFiles: new Set(),
      installed: new Map(),
      hurried: new Set(),
      projectRoot: this.options.projectRoot ?? process.cwd(),
      ...(this.scenario.file ? { scenarioFile: this.scenario.file } : {}),
      ...(this.options.signal ? { signal: this.options.signal } : {}),
      pause: (ms) => this.pause(ms),
    };
    const admin = this.client.emulator;
    const remote = this.remote;
    const faultsBefore = remote ? null : await admin.faults.get().catch(() => null);
    let faults: ScenarioResult['faults'] = null;
    if (this.options.faults && !remote) {
      const set = await admin.faults.set(this.options.faults.profile, this.options.faults.seed);
      faults = { profile: set.profile, seed: set.seed };
    }
    if (!remote) await admin.scenario.set(this.scenario.name).catch(() => undefined);
    const outputFrom = remote ? undefined : await outputCursor(this.client, this.pluginId);
    const steps: StepResult[] = [];
    let failed = false;
    const signal = this.options.signal;
    // Rejects when the run is aborted, so that a step waiting for its expectations is left at once.
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(new ScenarioInterrupted(this.scenario.name));
      signal?.addEventListener('abort', () => reject(new ScenarioInterrupted(this.scenario.name)), {
        once: true,
      });
    });
    aborted.catch(() => undefined);
    try {
      for (const [index, step] of this.scenario.steps.entries()) {
        const done = failed
          ? this.skipped(step, index)
          : await Promise.race([this.step(step, index), aborted]);
        const result = this.scrubber.value(done);
        if (!result.ok && !result.skipped) failed = true;
        steps.push(result);
        this.options.onStep?.(result);
      }
    } finally {
      // Also on an abort: the dev loop must not go on dropping deliveries, nor record skip them as the scenario's.
      if (!remote) await admin.scenario.set(null).catch(() => undefined);
      const changedFaults =
        this.options.faults || this.scenario.steps.some((s) => s.kind === 'faults');
      if (changedFaults && faultsBefore)
        await admin.faults
          .set(faultsBefore.on ? faultsBefore.profile : 'off', faultsBefore.seed)
          .catch(() => undefined);
    }
    const pluginOutput =
      outputFrom === undefined
        ? undefined
        : await outputSince(this.client, this.pluginId, outputFrom);
    const retried = await this.retried(new Date(started - 1).toISOString());
    return {
      name: this.scenario.name,
      ...(this.scenario.file ? { file: this.scenario.file } : {}),
      ok: !failed,
      durationMs: Date.now() - started,
      pluginId: this.pluginId,
      target: runTarget(remote ? 'remote' : 'emulator', this.client.baseUrl),
      // Every step was scrubbed as it ended; a value expanded later (a reply echoing it) is scrubbed from all.
      steps: this.scrubber.value(steps),
      faults,
      retried,
      ...(pluginOutput ? { pluginOutput: this.scrubber.value(pluginOutput) } : {}),
    };
  }

  private skipped(step: Step, index: number): StepResult {
    return {
      index,
      ...(step.id ? { id: step.id } : {}),
      kind: step.kind,
      label: stepLabel(step),
      ok: false,
      skipped: true,
      durationMs: 0,
      result: {},
      failures: [],
      deliveries: [],
    };
  }

  private async step(written: Step, index: number): Promise<StepResult> {
    const started = Date.now();
    // A millisecond back: a delivery stamped in the same millisecond as the step's start is its.
    const scope: StepScope = { startedAt: new Date(Date.now() - 1).toISOString() };
    this.stepStarts[index] = scope.startedAt;
    const base = { index, ...(written.id ? { id: written.id } : {}), kind: written.kind };
    // A reference that names nothing (a Scenario object given as validated) ends the run: it is not the step's failure.
    const body = this.references.resolve(written.body);
    let label = stepLabel(written);
    let result: ResultFields;
    try {
      const step = this.references.fitStep(written, body);
      // From the step with its environment values scrubbed: a label cuts a long text, which no scrubbing could find afterwards.
      label = stepLabel(this.scrubber.value(step));
      if (this.remote) scope.filesBefore = await this.filesBefore(step);
      result = await runStep(step, { ...this.context, scope });
    } catch (error) {
      return {
        ...base,
        label,
        ok: false,
        skipped: false,
        durationMs: Date.now() - started,
        result: {},
        failures: [],
        error: (error as Error).message,
        deliveries: [],
      };
    }
    if (written.id) this.references.remember(written.id, result);
    const watch = watchStep(this.context, scope);
    try {
      const { failures, unchecked } = await this.checks(written, scope, watch);
      const deliveries =
        written.expect.length && !this.remote
          ? (watch.settled ?? (await watch.deliveries())).map((d) => d.id)
          : [];
      for (const failure of failures) {
        if (failure.deliveryId) {
          const output = await deliveryOutput(this.client, failure.deliveryId, (ms) =>
            this.pause(ms),
          );
          if (output.length > 0) failure.pluginOutput = output;
        }
      }
      return {
        ...base,
        label,
        ok: failures.length === 0,
        skipped: false,
        durationMs: Date.now() - started,
        result,
        failures,
        deliveries,
        ...(unchecked.length ? { unchecked } : {}),
      };
    } finally {
      watch.close();
    }
  }

  /** Checks a step's expectations in order; those this target cannot observe are set apart, neither passed nor failed. */
  private async checks(
    step: Step,
    scope: StepScope,
    watch: StepWatch,
  ): Promise<{ failures: ExpectationFailure[]; unchecked: UncheckedExpectation[] }> {
    const failures: ExpectationFailure[] = [];
    const unchecked: UncheckedExpectation[] = [];
    for (const written of step.expect) {
      const notHere = this.remote ? uncheckableOnRemote(written) : null;
      if (notHere) {
        unchecked.push({ expectation: describeExpectation(written), reason: notHere });
        continue;
      }
      const failure = await this.check(written, scope, watch);
      if (failure) failures.push(failure);
    }
    return { failures, unchecked };
  }

  private async check(
    written: Step['expect'][number],
    scope: StepScope,
    watch: StepWatch,
  ): Promise<ExpectationFailure | null> {
    const body = this.references.resolve(written.body);
    let expectation = written;
    try {
      expectation = this.references.fitExpectation(written, body);
      const withinMs = expectation.body.withinMs ?? this.context.within;
      const described = describeExpectation(expectation);
      const context: ExpectationContext = {
        ...this.context,
        scope,
        watch,
        withinMs,
        deadline: Date.now() + withinMs,
        failure: (expected, observed, delivery) =>
          this.failure(described, expected, observed, delivery),
      };
      return await checkExpectation(expectation, context);
    } catch (error) {
      return {
        expectation: describeExpectation(expectation),
        expected: 'the check to run',
        observed: (error as Error).message,
      };
    }
  }

  /** On a remote platform, the files before the step of each repository its file expectations name. */
  private filesBefore(step: Step): Promise<Map<string, Map<string, string>> | undefined> {
    const repositories = step.expect.flatMap((e) =>
      e.kind === 'file' ? [this.references.text(e.body.repository)] : [],
    );
    return filesBefore(this.context, repositories);
  }

  /** The run's deliveries that needed a retry (none where the target keeps no delivery log). */
  private async retried(since: string): Promise<RetriedDelivery[]> {
    // A remote platform's delivery log is not public: nothing is asked of /_emulator there.
    if (this.remote) return [];
    const page = await this.client.emulator.deliveries
      .list({
        pluginId: this.pluginId,
        since,
        failedOnce: true,
        limit: 100,
        sortBy: 'createdAt',
        sortOrder: 'asc',
      })
      .catch(() => null);
    const mine = (page?.data ?? []).filter((d) => !d.scenario || d.scenario === this.scenario.name);
    return retriedDeliveries(mine, this.stepStarts);
  }

  private link(deliveryId: string | undefined): string | undefined {
    // An emulator given as an object lives in this process, which a test ends (and the emulator with it) before anyone
    // follows the link: linked only when asked. One given by URL or client is a running one. A remote has no dashboard.
    const links = this.options.dashboardLinks ?? this.options.emulator === undefined;
    if (!deliveryId || !links || this.remote) return undefined;
    return `${this.client.baseUrl}/_emulator/dashboard/#/deliveries/${deliveryId}`;
  }

  private failure(
    expectation: string,
    expected: string,
    observed: string,
    delivery?: Delivery,
  ): ExpectationFailure {
    return {
      expectation,
      expected,
      observed,
      ...(delivery ? { deliveryId: delivery.id, link: this.link(delivery.id) } : {}),
    };
  }
}
