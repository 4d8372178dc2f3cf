import { randomInt } from 'node:crypto';
import type { PlatformClient } from '../client/index.js';
import type { RunScenarioOptions } from './options.js';
import type { ScenarioResult } from './results.js';
import { runScenario } from './run.js';
import type { Scenario } from './schema.js';

// `--fault-matrix`: each scenario once clean, then under each fault kind alone, all with one seed,
// so that a scenario a fault broke can be run again the same way.

/** Each fault kind alone, strong enough to show in a short scenario. */
export const MATRIX_FAULTS = [
  { kind: 'duplicate', profile: 'duplicate=1' },
  { kind: 'delay', profile: 'delay=50-250ms' },
  { kind: 'reorder', profile: 'reorder=0.5:300ms' },
  { kind: 'drop', profile: 'drop=0.5' },
  { kind: 'timeout-after-answer', profile: 'timeout-after-answer=0.5' },
] as const;

/** One cell: a scenario under a fault (or clean). */
export interface MatrixCell {
  scenario: string;
  file?: string;
  /** 'clean' or the fault kind. */
  fault: string;
  /** The profile ('off' clean). */
  profile: string;
  seed: string;
  ok: boolean;
  /** Not run: the scenario fails clean already. */
  skipped: boolean;
  result: ScenarioResult | null;
}

/** A fresh seed for a matrix run. */
export function matrixSeed(): string {
  return String(randomInt(1, 1_000_000));
}

/** Runs one scenario clean and under each fault kind alone; `onCell` hears of each as it ends. */
export async function runFaultMatrix(
  scenario: Scenario,
  options: {
    client: PlatformClient;
    pluginId?: string;
    env?: RunScenarioOptions['env'];
    onStep?: RunScenarioOptions['onStep'];
    projectRoot?: RunScenarioOptions['projectRoot'];
    signal?: RunScenarioOptions['signal'];
    dashboardLinks?: RunScenarioOptions['dashboardLinks'];
    seed: string;
    onCell?: (cell: MatrixCell) => void;
  },
): Promise<MatrixCell[]> {
  const { seed, onCell, ...runOptions } = options;
  const cells: MatrixCell[] = [];
  const base = {
    scenario: scenario.name,
    ...(scenario.file ? { file: scenario.file } : {}),
    seed,
  };
  const clean = await runScenario(scenario, { ...runOptions, faults: { profile: 'off', seed } });
  const first: MatrixCell = {
    ...base,
    fault: 'clean',
    profile: 'off',
    ok: clean.ok,
    skipped: false,
    result: clean,
  };
  cells.push(first);
  onCell?.(first);
  for (const { kind, profile } of MATRIX_FAULTS) {
    if (!clean.ok) {
      const cell = { ...base, fault: kind, profile, ok: false, skipped: true, result: null };
      cells.push(cell);
      onCell?.(cell);
      continue;
    }
    const result = await runScenario(scenario, { ...runOptions, faults: { profile, seed } });
    const cell = { ...base, fault: kind, profile, ok: result.ok, skipped: false, result };
    cells.push(cell);
    onCell?.(cell);
  }
  return cells;
}
