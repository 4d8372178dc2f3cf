import type { PluginOutputLine } from '#contract/plugin-output';
import type { ExpectationFailure } from './context.js';
import type { RetriedDelivery } from './retries.js';
import type { Step } from './schema.js';
import type { RunTarget, UncheckedExpectation } from './target.js';

// What a scenario run gives (runScenario, run.ts): a result per step and one for the run. Every
// output (the console, --json, JUnit, MCP) is made from these, with the environment's values
// already replaced by their references.

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
