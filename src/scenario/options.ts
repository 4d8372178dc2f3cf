import { resolve } from 'node:path';
import { createClient, type ClientOptions, type PlatformClient } from '../client/index.js';
import type { StepResult } from './results.js';
import { loadScenarioFile } from './load.js';
import type { Scenario, Step } from './schema.js';
import { problemText, validateScenario, type ScenarioProblem } from './validate.js';

// What runScenario (run.ts) is given: where to run (a client, an emulator, or URLs and credentials),
// which scenario (a file, a parsed file or a validated scenario) and how; and the errors it throws
// for what it was given, before any step runs.

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

export function clientOf(target: ScenarioTarget): PlatformClient {
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

export async function scenarioOf(
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
