import { randomBytes } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createClient,
  type ClientOptions,
  type Delivery,
  type Message,
  type PlatformClient,
  type Plugin,
  type PluginInstance,
  type RepositoryFileRecord,
} from '../client/index.js';
import {
  entityOfInstance,
  INSTALL_ENTITIES,
  installOn,
  installsOn,
  type InstallEntity,
} from '../client/installs.js';
import { uploadRepositoryFile } from '../client/repository-file.js';
import type { EventKind } from '#contract/enums';
import type { PluginOutputLine } from '#contract/plugin-output';
import { MAX_FILE_BYTES } from '#contract/requests';
import { linearPattern } from '../shared/linear-pattern.js';
import {
  ProjectPathError,
  readProjectFile,
  resolveExistingInside,
} from '../shared/project-file.js';
import { loadScenarioFile } from './load.js';
import type { Expectation, Scenario, Step } from './schema.js';
import { problemText, validateScenario, type ScenarioProblem } from './validate.js';
import { EnvScrubber, expandText } from './references.js';
import { resultField, sendRequest } from './steps/request.js';
import {
  remoteProblems,
  runTarget,
  ScenarioRefused,
  uncheckableOnRemote,
  type RunTarget,
  type UncheckedExpectation,
} from './target.js';
import { retriedDeliveries, type RetriedDelivery } from './retries.js';

// The scenario runner: a library function with structured results, used by `plugsmith scenario
// run`, by `runScenario` of plugsmith/emulator and by whatever else drives scenarios. Every step
// goes through the platform's APIs (the client), every check reads what the plugin did there.

/** What an expectation saw when it failed: the expectation, what was expected, what came, and the delivery to look at. */
export interface ExpectationFailure {
  /** The expectation as written, e.g. `reply {"text":"You said: hi"}`. */
  expectation: string;
  expected: string;
  observed: string;
  deliveryId?: string;
  /** The delivery in the emulator's web dashboard (log in first with `plugsmith emulator dashboard`). */
  link?: string;
  /** What the plugin wrote while handling that delivery (its attempts' linked output, oldest first): untrusted text. */
  pluginOutput?: PluginOutputLine[];
}

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

const POLL_MS = 10;
/** The most lines of the plugin's output a run result keeps (the newest), and a failure (its delivery's). */
const MAX_RUN_OUTPUT_LINES = 1000;
const MAX_FAILURE_OUTPUT_LINES = 50;
/** How long a failure waits for its delivery's output to arrive, and a run for the plugin's last lines. */
const OUTPUT_WAIT_MS = 1000;
const OUTPUT_SETTLE_MS = 100;
/** After the step's deliveries are answered, how long a plugin that writes after answering gets. */
const SETTLE_GRACE_MS = 50;
/** On a remote platform (no delivery log to tell when the plugin is done), how long a reply count is watched once reached. */
const REMOTE_SETTLE_MS = 1000;

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

/** What a step leaves for its expectations to check. */
interface StepScope {
  startedAt: string;
  conversationId?: string;
  /** The user message the replies answer (after it). */
  messageId?: string;
  /** The step's deliveries once none is pending: later checks read these instead of asking again. */
  settled?: Delivery[];
  /** On a remote platform: each repository's files (id -> updatedAt) before the step, which file checks compare with. */
  filesBefore?: Map<string, Map<string, string>>;
}

class Runner {
  private readonly runId = randomBytes(4).toString('hex');
  private uniques = 0;
  private readonly results = new Map<string, Record<string, unknown>>();
  /** The files the scenario's own addFile steps added: not the plugin's writing. */
  private readonly ownFiles = new Set<string>();
  private plugin!: Plugin;
  private readonly within: number;
  /** Deliveries (and attempt numbers) whose retry was made at once. */
  private readonly hurried = new Set<string>();
  /** The environment values the steps expanded: replaced by `${env.NAME}` in every result. */
  private readonly scrubber = new EnvScrubber();
  /** A remote platform: public APIs only, nothing sent to `/_emulator`. */
  private readonly remote: boolean;
  /** The instances the scenario's install steps made: what uninstall and file checks know of them without the admin API. */
  private readonly installed = new Map<
    string,
    { entityType: PluginInstance['entityType']; entityId: string }
  >();
  /** When each step began (ISO): a retried delivery is told with its step. */
  private readonly stepStarts: string[] = [];

  constructor(
    private readonly client: PlatformClient,
    private readonly scenario: Scenario,
    private readonly pluginId: string,
    private readonly env: Record<string, string | undefined>,
    private readonly options: RunScenarioOptions,
  ) {
    this.within = options.defaultWithinMs ?? 5000;
    this.remote = options.remote === true;
  }

  /** Waits `ms`, or less when the run is aborted (then throws): a step left by an abort must not keep the process alive. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.options.signal });
  }

  async run(): Promise<ScenarioResult> {
    const started = Date.now();
    this.plugin = await this.client.plugins.get(this.pluginId);
    const admin = this.client.emulator;
    const remote = this.remote;
    const faultsBefore = remote ? null : await admin.faults.get().catch(() => null);
    let faults: ScenarioResult['faults'] = null;
    if (this.options.faults && !remote) {
      const set = await admin.faults.set(this.options.faults.profile, this.options.faults.seed);
      faults = { profile: set.profile, seed: set.seed };
    }
    if (!remote) await admin.scenario.set(this.scenario.name).catch(() => undefined);
    const outputFrom = remote ? undefined : await this.outputCursor();
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
    const pluginOutput = outputFrom === undefined ? undefined : await this.outputSince(outputFrom);
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
      label: labelOf(step.kind, step.body),
      ok: false,
      skipped: true,
      durationMs: 0,
      result: {},
      failures: [],
      deliveries: [],
    };
  }

  private async step(step: Step, index: number): Promise<StepResult> {
    const started = Date.now();
    const body = this.resolve(step.body) as Record<string, unknown>;
    const label = labelOf(step.kind, body);
    const base = { index, ...(step.id ? { id: step.id } : {}), kind: step.kind, label };
    // A millisecond back: a delivery stamped in the same millisecond as the step's start is its.
    const scope: StepScope = { startedAt: new Date(Date.now() - 1).toISOString() };
    this.stepStarts[index] = scope.startedAt;
    let result: Record<string, unknown>;
    try {
      if (this.remote) await this.snapshotFiles(step, scope);
      result = await this.act(step.kind, body, scope);
    } catch (error) {
      return {
        ...base,
        ok: false,
        skipped: false,
        durationMs: Date.now() - started,
        result: {},
        failures: [],
        error: (error as Error).message,
        deliveries: [],
      };
    }
    if (step.id) this.results.set(step.id, result);
    const failures: ExpectationFailure[] = [];
    const unchecked: UncheckedExpectation[] = [];
    for (const expectation of step.expect) {
      const notHere = this.remote ? uncheckableOnRemote(expectation) : null;
      if (notHere) {
        unchecked.push({ expectation: describeExpectation(expectation), reason: notHere });
        continue;
      }
      const resolved = {
        kind: expectation.kind,
        body: this.resolve(expectation.body) as Record<string, unknown>,
      };
      const failure = await this.check(resolved, scope).catch(
        (error: Error): ExpectationFailure => ({
          expectation: describeExpectation(resolved),
          expected: 'the check to run',
          observed: error.message,
        }),
      );
      if (failure) failures.push(failure);
    }
    const deliveries =
      step.expect.length && !this.remote
        ? (scope.settled ?? (await this.deliveriesOf(scope))).map((d) => d.id)
        : [];
    for (const failure of failures) {
      if (failure.deliveryId) {
        const output = await this.deliveryOutput(failure.deliveryId);
        if (output.length > 0) failure.pluginOutput = output;
      }
    }
    return {
      ...base,
      ok: failures.length === 0,
      skipped: false,
      durationMs: Date.now() - started,
      result,
      failures,
      deliveries,
      ...(unchecked.length ? { unchecked } : {}),
    };
  }

  /**
   * On a remote platform, the files of each repository a file expectation names, before the step: its clock is not this
   * machine's, so what the plugin wrote is told by comparing with these rather than by time.
   */
  private async snapshotFiles(step: Step, scope: StepScope): Promise<void> {
    const repositories = step.expect
      .filter((e) => e.kind === 'file')
      .map((e) => String(this.resolve(e.body.repository)));
    if (repositories.length === 0) return;
    scope.filesBefore = new Map();
    for (const repositoryId of new Set(repositories)) {
      const files = await this.allFiles(repositoryId);
      scope.filesBefore.set(repositoryId, new Map(files.map((f) => [f.id, f.updatedAt])));
    }
  }

  /** Every file of a repository (its pages walked). */
  private async allFiles(repositoryId: string): Promise<RepositoryFileRecord[]> {
    const files: RepositoryFileRecord[] = [];
    for (let page = 1; ; page++) {
      const got = await this.client.repositories.files.list(repositoryId, { limit: 100, page });
      files.push(...got.data);
      const pagination = got.pagination as { hasNext?: boolean } | undefined;
      if (!pagination?.hasNext || got.data.length === 0) return files;
    }
  }

  /** `${…}` replaced and `$${` made `${`: a whole-string reference keeps its value's type. */
  private resolve(value: unknown): unknown {
    if (typeof value === 'string') return expandText(value, (reference) => this.lookup(reference));
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
    return value;
  }

  private lookup(reference: string): unknown {
    const [head, ...rest] = reference.split('.');
    const field = rest.join('.');
    if (head === 'unique') return `${this.runId}-${++this.uniques}`;
    if (head === 'run') return this.runId;
    if (head === 'env') {
      // Checked by validation too; a Scenario object given as validated is held to the same rule.
      if (!this.scenario.env?.includes(field))
        throw new Error(
          `the scenario does not declare the environment variable ${field}: add "env": ["${field}"]`,
        );
      const value = this.env[field];
      if (value === undefined) throw new Error(`the environment variable ${field} is not set`);
      this.scrubber.add(field, value);
      return value;
    }
    const result = this.results.get(head);
    if (!result) throw new Error(`step "${head}" has no result (did it fail?)`);
    return resultField(head, result, field);
  }

  // --- steps -------------------------------------------------------------------------------

  private async act(
    kind: Step['kind'],
    body: Record<string, unknown>,
    scope: StepScope,
  ): Promise<Record<string, unknown>> {
    const client = this.client;
    switch (kind) {
      case 'conversation': {
        const character = await this.characterOf(body);
        const conversation = await client.messaging.conversations.create({
          characterId: character.id,
        });
        scope.conversationId = conversation.id;
        return { id: conversation.id, characterId: character.id, agentId: character.agentId };
      }
      case 'message': {
        const conversationId = String(body.conversation);
        const sent = await client.messaging.messages.send(conversationId, {
          content: String(body.text),
          type: 'TEXT',
        });
        scope.conversationId = conversationId;
        scope.messageId = sent.id;
        return { id: sent.id, conversationId };
      }
      case 'addFile':
        return this.addFile(body);
      case 'removeFile': {
        await client.repositories.files.remove(String(body.repository), String(body.file));
        return { id: String(body.file) };
      }
      case 'install': {
        const on = body.on as InstallEntity;
        const entityId = String(body.id);
        const create = {
          name: String(body.name ?? 'scenario'),
          pluginId: this.pluginId,
          events: (body.events as string[] | undefined) ?? this.plugin.events ?? [],
          scopes: (body.scopes as string[] | undefined) ?? this.plugin.scopes ?? [],
          inputs: (body.inputs as Record<string, unknown> | undefined) ?? {},
        };
        const instance = await installOn(client, on, entityId, create, {
          orgId: this.plugin.orgId,
        });
        this.installed.set(instance.id, {
          entityType: INSTALL_ENTITIES[on].entityType,
          entityId,
        });
        return { id: instance.id, entityId };
      }
      case 'uninstall': {
        const id = String(body.instance);
        const known = this.installed.get(id);
        const instance = known
          ? { id, ...known }
          : this.remote
            ? undefined
            : (await client.emulator.instancesOf(this.pluginId)).find((i) => i.id === id);
        const entity = instance && entityOfInstance(instance);
        if (!instance || !entity) throw new Error(`plugin ${this.pluginId} has no instance ${id}`);
        await installsOn(client, entity).remove(String(instance.entityId), id);
        return { id };
      }
      case 'trigger': {
        const { triggerEvent } = await import('../trigger/trigger.js');
        const payload = body.payload as Record<string, unknown> | undefined;
        const triggered = await triggerEvent(client, {
          type: body.event as EventKind,
          pluginId: this.pluginId,
          instanceId: body.instance as string | undefined,
          overrides: payload ? overridesOf(payload) : undefined,
          timeoutMs: this.within,
        });
        if (triggered.conversationId) scope.conversationId = triggered.conversationId;
        return {
          deliveryId: triggered.delivery?.id ?? null,
          eventId: triggered.delivery?.eventId ?? null,
          conversationId: triggered.conversationId ?? null,
        };
      }
      case 'rotateSecret': {
        await client.plugins.rotateWebhookSecret(this.pluginId);
        return {};
      }
      case 'faults': {
        await client.emulator.faults.set(
          String(body.profile),
          body.seed === undefined ? undefined : String(body.seed),
        );
        return {};
      }
      case 'wait': {
        await this.pause(Number(body.ms));
        return {};
      }
      case 'request':
        return sendRequest(client, body, this.remote);
    }
  }

  private async characterOf(
    body: Record<string, unknown>,
  ): Promise<{ id: string; agentId: string | null }> {
    const characters = this.client.emulator.characters;
    // A remote platform lists no characters: the id is taken as given (validation refused a conversation without one),
    // and its agent is not known (the result's agentId is null).
    if (this.remote && typeof body.character === 'string')
      return { id: body.character, agentId: null };
    if (typeof body.character === 'string') {
      const character = await characters.get(body.character);
      return { id: character.id, agentId: String(character.agentId) };
    }
    let agentId = body.agent as string | undefined;
    if (!agentId) {
      const instances = await this.client.emulator.instancesOf(this.pluginId);
      agentId = instances.find((i) => i.entityType === 'AGENT')?.entityId as string | undefined;
      if (!agentId)
        throw new Error(
          `plugin ${this.pluginId} is installed on no agent: name one ("conversation": { "agent": "agent_…" }) or install it first (an "install" step)`,
        );
    }
    const found = (await characters.list({ filters: { agentId }, limit: 1 })).data[0];
    if (!found) throw new Error(`agent ${agentId} has no character to talk to`);
    return { id: found.id, agentId };
  }

  private async addFile(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const client = this.client;
    const repositoryId = String(body.repository);
    const fileName = String(body.name);
    const bytes =
      typeof body.path === 'string'
        ? await this.projectFile(body.path)
        : Buffer.from(String(body.content ?? ''));
    const contentType = String(body.contentType ?? contentTypeOf(fileName));
    const repository = await client.repositories.get(repositoryId);
    const fileId = await uploadRepositoryFile(client, {
      repositoryId,
      orgId: String(repository.orgId),
      fileName,
      contentType,
      bytes,
    });
    this.ownFiles.add(fileId);
    return { id: fileId, name: fileName, repositoryId };
  }

  /**
   * A file the scenario names, read by the project's one rule (src/shared/project-file.ts): inside the project once links are
   * followed, a regular file opened without blocking, at most the platform's upload limit. Relative to the scenario file's
   * folder, which must itself be inside the project.
   */
  private async projectFile(path: string): Promise<Buffer> {
    const root = resolve(this.options.projectRoot ?? process.cwd());
    try {
      const base = this.scenario.file
        ? await resolveExistingInside(root, dirname(resolve(this.scenario.file)), {
            label: "the scenario file's folder",
          })
        : root;
      return await readProjectFile(root, path, {
        base,
        maxBytes: MAX_FILE_BYTES,
        label: 'addFile.path',
      });
    } catch (error) {
      if (error instanceof ProjectPathError) throw new Error(`${error.message}: ${error.fix}`);
      throw error;
    }
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

  // --- expectations ------------------------------------------------------------------------

  /** The plugin's deliveries since the step began, oldest first. */
  private async deliveriesOf(scope: StepScope): Promise<Delivery[]> {
    // A remote platform shows no delivery log: checks there read what the plugin did through the public APIs only.
    if (this.remote) return [];
    const page = await this.client.emulator.deliveries.list({
      pluginId: this.pluginId,
      since: scope.startedAt,
      limit: 100,
      sortBy: 'createdAt',
      sortOrder: 'asc',
    });
    return page.data.filter((d) => d.type !== 'WEBHOOK_CHALLENGE');
  }

  /**
   * A retry waiting for its time (a failed or dropped attempt) is made now: a scenario does not wait
   * out the retry schedule (POST /_emulator/deliveries/:id/retry). At most once per attempt.
   */
  private async hurry(deliveries: Delivery[]): Promise<void> {
    // On a remote platform there is no delivery to hurry (deliveriesOf gives none): its own retry schedule applies.
    for (const delivery of deliveries) {
      if (delivery.status !== 'pending' || delivery.attempts.length === 0) continue;
      const key = `${delivery.id}#${delivery.attempts.length}`;
      if (this.hurried.has(key)) continue;
      // Refused while an attempt still runs (a 409): asked again at the next look.
      const made = await this.client.emulator.deliveries.retry(delivery.id).then(
        () => true,
        () => false,
      );
      if (made) this.hurried.add(key);
    }
  }

  /** Waits until the step's deliveries are answered (none pending), at most until `deadline`; returns them. */
  private async settled(scope: StepScope, deadline: number): Promise<Delivery[]> {
    if (scope.settled) return scope.settled;
    for (;;) {
      const deliveries = await this.deliveriesOf(scope);
      await this.hurry(deliveries);
      const pending = deliveries.some((d) => d.status === 'pending');
      if (!pending && deliveries.length > 0) {
        scope.settled = deliveries;
        return deliveries;
      }
      if (Date.now() >= deadline) return deliveries;
      await this.pause(POLL_MS);
    }
  }

  private async replies(scope: StepScope): Promise<Message[]> {
    if (!scope.conversationId) return [];
    const page = await this.client.messaging.messages.list(scope.conversationId, {
      after: scope.messageId,
      limit: 100,
    });
    return page.data.filter((m) => m.sender === 'CHARACTER' && !m.isStreaming);
  }

  /**
   * Where the plugin's kept output ends now (the cursor `pluginOutput.read` goes on from), or undefined where the target
   * keeps none: a remote platform, or an emulator that answers no admin request.
   */
  private async outputCursor(): Promise<number | undefined> {
    try {
      let after = 0;
      for (;;) {
        const page = await this.client.emulator.pluginOutput.read(this.pluginId, { after });
        after = page.next;
        if (!page.hasMore) return after;
      }
    } catch {
      return undefined;
    }
  }

  /** The lines the plugin wrote after `from`, oldest first, the newest {@link MAX_RUN_OUTPUT_LINES} of them. */
  private async outputSince(from: number): Promise<PluginOutputLine[] | undefined> {
    const lines: PluginOutputLine[] = [];
    // The last lines reach the emulator a moment after the plugin wrote them.
    await sleep(OUTPUT_SETTLE_MS);
    try {
      let after = from;
      for (;;) {
        const page = await this.client.emulator.pluginOutput.read(this.pluginId, { after });
        for (const line of page.lines)
          lines.push({ at: line.at, stream: line.stream, text: line.text });
        after = page.next;
        if (!page.hasMore) break;
      }
    } catch {
      return undefined;
    }
    return lines.slice(-MAX_RUN_OUTPUT_LINES);
  }

  /** The plugin's output linked to a delivery's attempts (empty where none is kept). */
  private async deliveryOutput(deliveryId: string): Promise<PluginOutputLine[]> {
    // The plugin's lines reach the emulator a moment after its answer (dev reads its pipe and posts them): a failure
    // seen at once waits that moment for them.
    const deadline = Date.now() + OUTPUT_WAIT_MS;
    for (;;) {
      const delivery = await this.client.emulator.deliveries.get(deliveryId).catch(() => undefined);
      if (!delivery) return [];
      const lines = delivery.attempts.flatMap((attempt) => attempt.pluginOutput ?? []);
      if (lines.length > 0 || Date.now() >= deadline) return lines.slice(-MAX_FAILURE_OUTPUT_LINES);
      await this.pause(POLL_MS * 5);
    }
  }

  private link(deliveryId: string | undefined): string | undefined {
    // An emulator given as an object lives in this process, which a test ends (and the emulator with it) before anyone
    // follows the link: linked only when asked. One given by URL or client is a running one. A remote has no dashboard.
    const links = this.options.dashboardLinks ?? this.options.emulator === undefined;
    if (!deliveryId || !links || this.remote) return undefined;
    return `${this.client.baseUrl}/_emulator/dashboard/#/deliveries/${deliveryId}`;
  }

  private failure(
    expectation: Expectation,
    expected: string,
    observed: string,
    delivery?: Delivery,
  ): ExpectationFailure {
    return {
      expectation: describeExpectation(expectation),
      expected,
      observed,
      ...(delivery ? { deliveryId: delivery.id, link: this.link(delivery.id) } : {}),
    };
  }

  /** The delivery to point at when a reply is wrong: the step's last of AGENT_MESSAGE_RECEIVED, else its last. */
  private async blame(scope: StepScope): Promise<Delivery | undefined> {
    const deliveries = await this.deliveriesOf(scope).catch(() => []);
    return (
      deliveries.filter((d) => d.type === 'AGENT_MESSAGE_RECEIVED').at(-1) ?? deliveries.at(-1)
    );
  }

  private async check(
    expectation: Expectation,
    scope: StepScope,
  ): Promise<ExpectationFailure | null> {
    const body = expectation.body;
    const withinMs = typeof body.withinMs === 'number' ? body.withinMs : this.within;
    const deadline = Date.now() + withinMs;
    switch (expectation.kind) {
      case 'reply': {
        // RE2: linear in the reply, so a pattern such as (a+)+b cannot stall the run.
        const pattern = typeof body.pattern === 'string' ? linearPattern(body.pattern) : null;
        const matches = (m: Message) =>
          typeof body.text === 'string'
            ? m.content === body.text
            : pattern
              ? pattern.test(String(m.content))
              : true;
        const wanted =
          typeof body.text === 'string'
            ? `a reply ${JSON.stringify(body.text)}`
            : typeof body.pattern === 'string'
              ? `a reply matching /${body.pattern}/`
              : 'a reply';
        let settledAt: number | null = null;
        for (;;) {
          const replies = await this.replies(scope);
          if (replies.some(matches)) return null;
          const deliveries = await this.deliveriesOf(scope);
          await this.hurry(deliveries);
          if (replies.length > 0 && settledAt === null) {
            if (deliveries.length > 0 && !deliveries.some((d) => d.status === 'pending')) {
              settledAt = Date.now();
              scope.settled = deliveries;
            }
          }
          const settledLongEnough = settledAt !== null && Date.now() - settledAt >= SETTLE_GRACE_MS;
          if (settledLongEnough || Date.now() >= deadline) {
            const observed = replies.length
              ? replies.map((m) => JSON.stringify(m.content)).join(', ')
              : `no reply within ${withinMs} ms`;
            return this.failure(expectation, wanted, observed, await this.blame(scope));
          }
          await this.pause(POLL_MS);
        }
      }
      case 'replies': {
        const count = Number(body.count);
        if (this.remote)
          return this.checkRepliesRemote(expectation, scope, count, withinMs, deadline);
        await this.settled(scope, deadline);
        for (;;) {
          await this.pause(SETTLE_GRACE_MS);
          const replies = await this.replies(scope);
          if (replies.length === count) return null;
          if (replies.length > count || Date.now() >= deadline) {
            const texts = replies.map((m) => JSON.stringify(m.content)).join(', ');
            return this.failure(
              expectation,
              `exactly ${count} repl${count === 1 ? 'y' : 'ies'}`,
              `${replies.length} repl${replies.length === 1 ? 'y' : 'ies'}${texts ? `: ${texts}` : ''}`,
              await this.blame(scope),
            );
          }
        }
      }
      case 'none': {
        await this.pause(Math.max(0, deadline - Date.now()));
        const replies = await this.replies(scope);
        if (replies.length === 0) return null;
        return this.failure(
          expectation,
          `no reply within ${withinMs} ms`,
          replies.map((m) => JSON.stringify(m.content)).join(', '),
          await this.blame(scope),
        );
      }
      case 'delivery':
        return this.checkDeliveries(expectation, scope, deadline);
      case 'file':
        return this.checkFile(expectation, scope, deadline);
    }
  }

  /**
   * `replies` on a remote platform, whose deliveries are not seen: the count is awaited until the deadline, then a moment
   * more ({@link REMOTE_SETTLE_MS}, within the deadline) for a reply too many; none expected: the whole window.
   */
  private async checkRepliesRemote(
    expectation: Expectation,
    scope: StepScope,
    count: number,
    withinMs: number,
    deadline: number,
  ): Promise<ExpectationFailure | null> {
    let replies = await this.replies(scope);
    while (count > 0 && replies.length < count && Date.now() < deadline) {
      await this.pause(POLL_MS * 5);
      replies = await this.replies(scope);
    }
    if (replies.length === count) {
      const settle =
        count === 0 ? deadline - Date.now() : Math.min(REMOTE_SETTLE_MS, deadline - Date.now());
      await this.pause(Math.max(0, settle));
      replies = await this.replies(scope);
    }
    if (replies.length === count) return null;
    const texts = replies.map((m) => JSON.stringify(m.content)).join(', ');
    return this.failure(
      expectation,
      `exactly ${count} repl${count === 1 ? 'y' : 'ies'}`,
      `${replies.length} repl${replies.length === 1 ? 'y' : 'ies'}${texts ? `: ${texts}` : ''}${replies.length < count ? ` within ${withinMs} ms` : ''}`,
    );
  }

  private async checkDeliveries(
    expectation: Expectation,
    scope: StepScope,
    deadline: number,
  ): Promise<ExpectationFailure | null> {
    const body = expectation.body;
    const all = await this.settled(scope, Math.max(deadline, Date.now() + this.within));
    const deliveries = body.type ? all.filter((d) => d.type === body.type) : all;
    const of = body.type ? `${String(body.type)} deliveries` : 'deliveries';
    if (typeof body.count === 'number' && deliveries.length !== body.count)
      return this.failure(
        expectation,
        `exactly ${body.count} ${of}`,
        `${deliveries.length}: ${deliveries.map((d) => `${d.type} ${d.id}`).join(', ') || 'none'}`,
        deliveries[0],
      );
    if (deliveries.length === 0)
      return body.count === 0
        ? null
        : this.failure(expectation, `a ${of.replace(/ies$/, 'y')} to the plugin`, 'none');
    const status = body.status ?? '2xx';
    const is2xx = (code: number | null) => code !== null && code >= 200 && code < 300;
    for (const delivery of deliveries) {
      // The plugin's own answers: an attempt the emulator dropped, or a duplicate it sent, is not one.
      const marks = delivery.faults ?? [];
      const notAnswers = new Set(
        marks.filter((m) => m.kind === 'drop' || m.kind === 'duplicate').map((m) => m.attempt),
      );
      const answers = delivery.attempts.filter((a) => !notAnswers.has(a.number));
      const first = answers[0];
      const answered = first?.responseStatus ?? null;
      const okStatus = status === '2xx' ? is2xx(answered) : answered === status;
      if (!okStatus)
        return this.failure(
          expectation,
          `${delivery.type} answered ${status}`,
          first
            ? `${answered === null ? 'no answer' : `HTTP ${answered}`}${first.error ? ` (${first.error})` : ''}${first.responseBody ? `: ${first.responseBody.slice(0, 200)}` : ''}`
            : `no attempt reached the plugin yet (status ${delivery.status})`,
          delivery,
        );
      if (typeof body.withinMs === 'number' && first.durationMs > body.withinMs)
        return this.failure(
          expectation,
          `${delivery.type} answered within ${body.withinMs} ms`,
          `answered in ${Math.round(first.durationMs)} ms`,
          delivery,
        );
      // Retried because of the plugin: one of its answers was not a 2xx (a lost answer, injected, was a 2xx).
      const refused = answers.filter((a) => !is2xx(a.responseStatus));
      if (body.retried === false && refused.length > 0)
        return this.failure(
          expectation,
          `${delivery.type} not retried`,
          `retried after ${refused.map((a) => (a.responseStatus === null ? `no answer (${a.error ?? 'none'})` : `HTTP ${a.responseStatus}`)).join(', ')}`,
          delivery,
        );
    }
    return null;
  }

  /**
   * A file of the name added (`written`) or changed (`updated`) in the repository since the step
   * began, by the plugin: not by the scenario's own addFile steps, nor by another plugin's
   * installation. Installation tokens have no scope that adds files, so a plugin writes with a
   * user token it holds; the emulator lists who added each file (`addedBy`), and a failure names them.
   */
  private async checkFile(
    expectation: Expectation,
    scope: StepScope,
    deadline: number,
  ): Promise<ExpectationFailure | null> {
    const body = expectation.body;
    const repositoryId = String(body.repository);
    const written = body.written !== undefined;
    const name = String(body.written ?? body.updated);
    // On a remote platform: the instances this scenario installed (the admin API, which lists all, is the emulator's).
    const pluginInstances = new Set(
      this.remote
        ? [...this.installed.keys(), ...(await this.providersOf(repositoryId))]
        : (await this.client.emulator.instancesOf(this.pluginId)).map((i) => i.id),
    );
    const before = scope.filesBefore?.get(repositoryId);
    for (;;) {
      const files = before
        ? await this.allFiles(repositoryId)
        : (await this.client.repositories.files.list(repositoryId, { limit: 100 })).data;
      const named = files.filter((f) => f.fileName === name);
      const changedAt = (file: RepositoryFileRecord) =>
        written ? (file.addedAt ?? file.createdAt) : file.updatedAt;
      // A remote platform's clock is not this machine's: new (written) or changed (updated) since the step's snapshot.
      const changed = (file: RepositoryFileRecord) =>
        before
          ? written
            ? !before.has(file.id)
            : before.get(file.id) !== file.updatedAt
          : changedAt(file) >= scope.startedAt;
      const recent = named.filter(changed);
      if (recent.some((f) => this.byThePlugin(f, pluginInstances, written, scope, before)))
        return null;
      if (Date.now() >= deadline) {
        const seen = named.map((f) => {
          const when = written ? `added ${changedAt(f)}` : `last changed ${changedAt(f)}`;
          const early = changedAt(f) < scope.startedAt ? ', before the step began' : '';
          return `${name} (${f.id}) ${when}${early} by ${this.adderOf(f, pluginInstances)}`;
        });
        return this.failure(
          expectation,
          `${name} ${written ? 'written to' : 'updated in'} ${repositoryId} by the plugin (${this.pluginId})`,
          seen.length
            ? seen.join('; ')
            : `no file ${name} (files: ${files.map((f) => f.fileName).join(', ') || 'none'})`,
          await this.blame(scope),
        );
      }
      await this.pause(POLL_MS * 4);
    }
  }

  /**
   * Whether the plugin wrote the file: with its own installation's token, or a user token outside
   * the scenario's own steps. Who changed a file is not recorded: an update counts unless the
   * scenario itself added the file during the step (its upload changes it too).
   */
  private byThePlugin(
    file: RepositoryFileRecord,
    pluginInstances: Set<string>,
    written: boolean,
    scope: StepScope,
    before?: Map<string, string>,
  ): boolean {
    const addedNow = before
      ? !before.has(file.id)
      : (file.addedAt ?? file.createdAt) >= scope.startedAt;
    if (this.ownFiles.has(file.id) && (written || addedNow)) return false;
    if (!written) return true;
    const adder = file.addedBy;
    if (adder?.kind === 'instance') return pluginInstances.has(adder.instanceId);
    return true;
  }

  /** The plugin's data-provider instances on a repository, by the public API (a remote platform's file checks). */
  private async providersOf(repositoryId: string): Promise<string[]> {
    const page = await this.client.dataProviders
      .list(repositoryId, { limit: 100 })
      .catch(() => ({ data: [] as Array<{ id: string; pluginId?: string }> }));
    return page.data.filter((i) => i.pluginId === this.pluginId).map((i) => i.id);
  }

  /** Who added the file, in words. */
  private adderOf(file: RepositoryFileRecord, pluginInstances: Set<string>): string {
    const adder = file.addedBy;
    if (this.ownFiles.has(file.id)) {
      const user = adder?.kind === 'user' ? ` ${adder.userId}` : '';
      return `this scenario's addFile step (user${user}), not the plugin`;
    }
    if (!adder) return 'someone the platform does not name';
    if (adder.kind === 'user') return `user ${adder.userId}`;
    return pluginInstances.has(adder.instanceId)
      ? `the plugin's installation ${adder.instanceId}`
      : `installation ${adder.instanceId}, of another plugin`;
  }
}

/** A payload object as the `--set` overrides of `plugsmith trigger` (each leaf a path). */
function overridesOf(
  payload: Record<string, unknown>,
  prefix: string[] = [],
): Array<{ path: string[]; value: unknown }> {
  const out: Array<{ path: string[]; value: unknown }> = [];
  for (const [key, value] of Object.entries(payload)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length)
      out.push(...overridesOf(value as Record<string, unknown>, [...prefix, key]));
    else out.push({ path: [...prefix, key], value });
  }
  return out;
}

const CONTENT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
  pdf: 'application/pdf',
};

function contentTypeOf(name: string): string {
  const extension = basename(name).split('.').at(-1)?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'text/plain';
}

function shortText(text: unknown): string {
  const s = String(text);
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}…` : s);
}

/** The step in words. */
export function labelOf(kind: Step['kind'], body: Record<string, unknown>): string {
  switch (kind) {
    case 'conversation':
      return `conversation with ${String(body.character ?? body.agent ?? "the plugin's agent")}`;
    case 'message':
      return `message ${shortText(body.text)}`;
    case 'addFile':
      return `add file ${String(body.name)} to ${String(body.repository)}`;
    case 'removeFile':
      return `remove file ${String(body.file)} from ${String(body.repository)}`;
    case 'install':
      return `install on ${String(body.on)} ${String(body.id)}`;
    case 'uninstall':
      return `uninstall ${String(body.instance)}`;
    case 'trigger':
      return `trigger ${String(body.event)}${body.payload ? ' (payload)' : ''}`;
    case 'rotateSecret':
      return 'rotate the webhook secret';
    case 'faults':
      return `faults ${String(body.profile)}${body.seed !== undefined ? ` (seed ${String(body.seed)})` : ''}`;
    case 'wait':
      return `wait ${String(body.ms)} ms`;
    case 'request':
      return `request ${String(body.method)} ${String(body.path)}${body.api === 'messaging' ? ' (messaging)' : ''}`;
  }
}

/** An expectation as written: `reply {"text":"hi"}`. */
export function describeExpectation(expectation: Expectation): string {
  return `${expectation.kind} ${JSON.stringify(expectation.body)}`;
}
