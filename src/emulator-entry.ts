// What `plugsmith/emulator` exports: the emulator's public entry, and the scenario runner for a
// plugin's own TypeScript tests (`runScenario(file, { baseUrl, token, … })`). The runner is CLI
// code (it drives the platform through the client), so it joins the emulator here, in the
// package's entry, and not inside emulator/, which imports nothing of src/ but src/shared/.
export * from '../emulator/index.js';
export { runScenario } from './scenario/run.js';
export {
  ScenarioFileError,
  ScenarioInterrupted,
  type RunScenarioOptions,
} from './scenario/options.js';
export type { ExpectationFailure } from './scenario/context.js';
export type { ScenarioResult, StepResult } from './scenario/results.js';
export { validateScenario, type ScenarioProblem } from './scenario/validate.js';
export { ScenarioRefused, type RunTarget, type UncheckedExpectation } from './scenario/target.js';
