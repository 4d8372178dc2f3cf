import { relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.js';
import type { ScenarioResult } from '../scenario/run.js';
import type { Connection } from './connection.js';

// What the scenario tools share: the project folder their paths are resolved in, and a scenario's result for an agent.

/** The project folder of a connection, where scenario paths are resolved; outside a project, an error naming the fix. */
export function projectOf(connection: Connection): string {
  if (!connection.project)
    throw new UserError(
      'scenarios belong to a project: run the server in the folder holding plugsmith.json (or pass --emulator <folder>)',
    );
  return connection.project;
}

/** A path given by the agent, resolved in the project; one that leaves the project is refused. */
export function insideProject(project: string, path: string): string {
  const full = resolve(project, path);
  if (full !== project && !full.startsWith(project + sep))
    throw new UserError(
      `${path} is outside the project ${project}: give a path inside it (e.g. scenarios/first.json)`,
    );
  return full;
}

/** A scenario's result for an agent: the step labels, failures and errors quote messages and answers, so they are untrusted. */
export function scenarioShape(scenario: ScenarioResult, project: string) {
  return {
    name: scenario.name,
    file: scenario.file ? relative(project, scenario.file) : null,
    ok: scenario.ok,
    durationMs: scenario.durationMs,
    pluginId: scenario.pluginId,
    faults: scenario.faults,
    steps: scenario.steps.map((step) => ({
      index: step.index,
      id: step.id ?? null,
      kind: step.kind,
      ok: step.ok,
      skipped: step.skipped,
      durationMs: step.durationMs,
      deliveries: step.deliveries,
      untrusted: { label: step.label, error: step.error ?? null, failures: step.failures },
    })),
  };
}
