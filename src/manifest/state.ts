import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writePrivateFile } from '../shared/private-file.js';
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

export async function readProjectState(manifestPath: string): Promise<ProjectState> {
  try {
    const parsed = JSON.parse(await readFile(statePath(manifestPath), 'utf8')) as {
      targets?: Record<string, TargetState>;
    };
    return {
      version: 2,
      targets: parsed.targets && typeof parsed.targets === 'object' ? parsed.targets : {},
    };
  } catch {
    return { version: 2, targets: {} };
  }
}

/** Writes the project state whole or not at all, owner-only like the rest of `.plugsmith/`. */
export async function writeProjectState(manifestPath: string, state: ProjectState): Promise<void> {
  const path = statePath(manifestPath);
  await mkdir(dirname(path), { recursive: true });
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
