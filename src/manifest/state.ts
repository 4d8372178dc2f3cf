import { realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EXIT, UserError } from '../errors.js';
import { writePrivateFile } from '../shared/private-file.js';
import {
  isInside,
  ProjectPathError,
  readProjectFile,
  resolveWritableInside,
} from '../shared/project-file.js';
import { normalizeBaseUrl } from '../config/url.js';

/** What a deploy applied, per target, so the next one can tell drift from intent. */
export interface AppliedState {
  plugin: Record<string, unknown>;
  actions: Record<string, Record<string, unknown>>;
  externalEvents: Record<string, Record<string, unknown>>;
}

export interface TargetState {
  pluginId: string;
  /** The URL last deployed through (informative: an emulator's port may change). */
  baseUrl: string;
  orgId: string;
  /** The emulator store's id; absent for the remote platform (and in entries of version 1). */
  storeId?: string;
  deployedAt: string;
  applied: AppliedState;
  /**
   * The PORT the manifest's webhook URL was deployed with to this emulator (the port `plugsmith dev` gave the plugin, which
   * moves off a taken default): a later `deploy` without PORT uses it, rather than the default another project's plugin holds.
   */
  pluginPort?: number;
  /** The id of this machine's record of the deploy (src/manifest/deploys-here.ts), for the remote platform. */
  recordId?: string;
}

export interface ProjectState {
  version: 2;
  /** Keyed `store:<storeId>` for an emulator's store (whatever its port), `url:<base URL>` for the platform; version-1 keys await adoption. */
  targets: Record<string, TargetState>;
}

/** Where a deploy goes, as far as the project state is concerned. */
export interface TargetIdentity {
  /** The emulator's store id, or null for the remote platform (or an emulator too old to tell). */
  storeId: string | null;
  baseUrl: string;
}

/** `.plugsmith/state.json` beside the manifest. */
export function statePath(manifestPath: string): string {
  return join(dirname(manifestPath), '.plugsmith', 'state.json');
}

/** The state key of a target. */
export function targetKey(identity: TargetIdentity): string {
  return identity.storeId
    ? `store:${identity.storeId}`
    : `url:${normalizeBaseUrl(identity.baseUrl)}`;
}

/** The state file as its project names it. */
const STATE_FILE = '.plugsmith/state.json';

/** The most a state file may hold: a project deploys to a few targets (its entries are a few hundred bytes each). */
const MAX_STATE_BYTES = 4 * 1024 * 1024;

/** How a refusal names the state file (ProjectPathError's messages start with their label, then the path quoted). */
const STATE_LABEL = "the project's deploy state";

/** A ProjectPathError's message about the state file, its path unquoted as the rest of the CLI's words have it. */
function stateProblem(error: ProjectPathError): string {
  return error.message.replace(JSON.stringify(STATE_FILE), STATE_FILE);
}

/** A state file refused as a path of the project (it leads out of it, is no regular file, is too large): `why`, and the way out. */
function refusedState(why: string): UserError {
  return new UserError(
    `${why}. It is the project's own record of its deploys, which a cloned project must not bring: delete it (\`rm .plugsmith/state.json\`, or the link \`.plugsmith\` if it is one; \`.plugsmith/emulator\` is dev's store, keep it) and deploy again`,
    EXIT.USAGE,
  );
}

/**
 * The project's deploy state; empty when there is none or it is not JSON. The file may come with a cloned project, so it is
 * read as a path of the project: a link leading out of it, a FIFO or device, or a file past 4 MiB is refused, naming it.
 */
export async function readProjectState(manifestPath: string): Promise<ProjectState> {
  const project = dirname(manifestPath);
  // A .plugsmith that leads out of the project is refused before anything is deployed: its state would be written
  // there, after the deploy changed the platform.
  const folder = await realpath(join(project, '.plugsmith')).catch(() => null);
  if (folder && !isInside(await realpath(project), folder))
    throw refusedState(
      `${STATE_LABEL} ${STATE_FILE} leads outside the project (its folder is ${folder})`,
    );
  // None yet (a new project, or one that never deployed); a link to nothing is none too.
  if (!(await stat(statePath(manifestPath)).catch(() => null))) return { version: 2, targets: {} };
  let text: string;
  try {
    text = (
      await readProjectFile(dirname(manifestPath), STATE_FILE, {
        label: STATE_LABEL,
        maxBytes: MAX_STATE_BYTES,
      })
    ).toString('utf8');
  } catch (error) {
    if (error instanceof ProjectPathError) throw refusedState(stateProblem(error));
    return { version: 2, targets: {} };
  }
  try {
    const parsed = JSON.parse(text) as { targets?: Record<string, TargetState> };
    return {
      version: 2,
      targets: parsed.targets && typeof parsed.targets === 'object' ? parsed.targets : {},
    };
  } catch {
    return { version: 2, targets: {} };
  }
}

/**
 * Writes the project state whole or not at all, owner-only like the rest of `.plugsmith/`, inside the project: a
 * `.plugsmith` that links out of it is refused (a link planted at state.json's name is replaced, not followed).
 */
export async function writeProjectState(manifestPath: string, state: ProjectState): Promise<void> {
  const path = await resolveWritableInside(dirname(manifestPath), STATE_FILE, {
    label: STATE_LABEL,
  }).catch((error: unknown) => {
    throw error instanceof ProjectPathError ? refusedState(stateProblem(error)) : error;
  });
  await writePrivateFile(path, JSON.stringify({ ...state, version: 2 }, null, 2) + '\n');
}

/** What findTarget found: the entry, and entries of version 1 that name other plugins of the same target. */
export interface FoundTarget {
  key: string;
  target: TargetState | undefined;
  /** Keys of version-1 entries this lookup adopted (remove them when writing the new key). */
  adopted: string[];
  /** Plugin ids of further version-1 entries for the same target: duplicates made by older versions. */
  duplicates: string[];
}

/**
 * The project's entry for a target; failing its key, the newest version-1 entry of the same base URL (platform) or whose
 * plugin exists in the store (emulator: ids are unique) is adopted, and the others are reported as duplicates.
 */
export async function findTarget(
  state: ProjectState,
  identity: TargetIdentity,
  existsHere: (pluginId: string) => Promise<boolean>,
): Promise<FoundTarget> {
  const key = targetKey(identity);
  if (state.targets[key]) return { key, target: state.targets[key], adopted: [], duplicates: [] };
  // Version 1 keyed an entry by a profile name or a base URL.
  const legacy = Object.entries(state.targets).filter(
    ([k, t]) =>
      !k.startsWith('store:') && !k.startsWith('url:') && t && typeof t.pluginId === 'string',
  );
  const matches: Array<[string, TargetState]> = [];
  for (const [k, t] of legacy) {
    const same = identity.storeId
      ? await existsHere(t.pluginId)
      : normalizeBaseUrl(t.baseUrl ?? '') === normalizeBaseUrl(identity.baseUrl);
    if (same) matches.push([k, t]);
  }
  if (matches.length === 0) return { key, target: undefined, adopted: [], duplicates: [] };
  matches.sort((a, b) => String(b[1].deployedAt).localeCompare(String(a[1].deployedAt)));
  const [, newest] = matches[0];
  const others = [...new Set(matches.slice(1).map(([, t]) => t.pluginId))].filter(
    (id) => id !== newest.pluginId,
  );
  return {
    key,
    target: { ...newest, ...(identity.storeId ? { storeId: identity.storeId } : {}) },
    adopted: matches.map(([k]) => k),
    duplicates: others,
  };
}

/** Records a deploy under its key, dropping the version-1 entries it adopted. */
export function recordTarget(
  state: ProjectState,
  found: Pick<FoundTarget, 'key' | 'adopted'>,
  target: TargetState,
): void {
  for (const k of found.adopted) delete state.targets[k];
  state.targets[found.key] = target;
}
