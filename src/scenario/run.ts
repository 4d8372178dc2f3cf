import { setTimeout as sleep } from 'node:timers/promises';
import type { Delivery, PlatformClient } from '../client/index.js';
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
import { clientOf, scenarioOf, ScenarioInterrupted, type RunScenarioOptions } from './options.js';
import { deliveryOutput, outputCursor, outputSince } from './plugin-output.js';
import { EnvScrubber, RunReferences } from './references.js';
import type { ScenarioResult, StepResult } from './results.js';
import { retriedDeliveries, type RetriedDelivery } from './retries.js';
import type { Scenario, Step } from './schema.js';
import { runStep, stepLabel } from './steps/index.js';
import {
  remoteProblems,
  runTarget,
  ScenarioRefused,
  uncheckableOnRemote,
  type UncheckedExpectation,
} from './target.js';

// The scenario runner: a library function with structured results, used by `plugsmith scenario
// run`, by `runScenario` of plugsmith/emulator and by whatever else drives scenarios. Every step
// goes through the platform's APIs (the client), every check reads what the plugin did there.
//
// This file is the loop: for each step it expands the references (references.ts), does the step
// with its kind's module (steps/), checks each expectation with its kind's module (expectations/,
// which wait on the emulator's streams: expectations/watch.ts) and reports. A failed step skips the
// rest; an abort ends the run at once; either way the emulator is put back as it was.
// What it is given and the errors for it are options.ts; what it gives, results.ts.

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
