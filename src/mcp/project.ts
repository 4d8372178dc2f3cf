import { realpath } from 'node:fs/promises';
import { relative } from 'node:path';
import {
  EMULATOR_FOLDER,
  isEmulatorFile,
  resolveExistingInside,
  resolveWritableInside,
  writeProjectFile,
} from '../shared/project-file.js';
import { refusedPath, UserError } from '../errors.js';
import type { ScenarioResult } from '../scenario/results.js';
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

/** The emulator's own files (its storage secret, its store) are never an MCP tool's to read or write. */
function refusePrivate(project: string, real: string, path: string): void {
  if (isEmulatorFile(project, real))
    throw new UserError(
      `${JSON.stringify(path)} is under ${EMULATOR_FOLDER}/, the emulator's own files (its store and secrets): MCP tools never read or write there; name a file elsewhere in the project (e.g. scenarios/first.json)`,
    );
}

/**
 * A path the agent gives to read, as its real path: it must exist and stay inside the project once every link is followed
 * (src/shared/project-file.ts), and not lie under .plugsmith/.
 */
export async function existingInProject(project: string, path: string): Promise<string> {
  const root = await realpath(project);
  const real = await resolveExistingInside(root, path, { label: 'the path' }).catch(refusedPath);
  refusePrivate(root, real, path);
  return real;
}

/**
 * A path the agent gives to write: its folder, links followed, must be inside the project (a linked `recorded/` that
 * leads out is refused) and not under .plugsmith/; write it with writeProjectFile.
 */
export async function writableInProject(project: string, path: string): Promise<string> {
  const root = await realpath(project);
  const target = await resolveWritableInside(root, path, { label: 'output' }).catch(refusedPath);
  refusePrivate(root, target, path);
  return target;
}

/** Writes `data` at `target` (from writableInProject), replacing a link planted at its name instead of following it. */
export async function writeInProject(project: string, target: string, data: string): Promise<void> {
  await writeProjectFile(await realpath(project), target, data).catch(refusedPath);
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
    // The deliveries the plugin refused before a retry (made at once): a passing scenario says so, as the CLI does.
    retried: (scenario.retried ?? []).map((r) => ({
      deliveryId: r.deliveryId,
      type: r.type,
      step: r.step,
      answers: r.answers,
      status: r.status,
    })),
  };
}
