import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** What a deploy applied, per target, so the next one can tell drift from intent. */
export interface AppliedState {
  plugin: Record<string, unknown>;
  actions: Record<string, Record<string, unknown>>;
  externalEvents: Record<string, Record<string, unknown>>;
}

export interface TargetState {
  pluginId: string;
  baseUrl: string;
  orgId: string;
  deployedAt: string;
  applied: AppliedState;
}

export interface ProjectState {
  version: 1;
  /** Keyed by profile name (or the base URL when no profile is in use). */
  targets: Record<string, TargetState>;
}

/** `.plugsmith/state.json` beside the manifest. */
export function statePath(manifestPath: string): string {
  return join(dirname(manifestPath), '.plugsmith', 'state.json');
}

export async function readProjectState(manifestPath: string): Promise<ProjectState> {
  try {
    const parsed = JSON.parse(await readFile(statePath(manifestPath), 'utf8')) as ProjectState;
    return { version: 1, targets: parsed.targets ?? {} };
  } catch {
    return { version: 1, targets: {} };
  }
}

export async function writeProjectState(manifestPath: string, state: ProjectState): Promise<void> {
  const path = statePath(manifestPath);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(state, null, 2) + '\n');
  await rename(tmp, path);
}
