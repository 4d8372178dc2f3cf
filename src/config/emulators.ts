import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { writePrivateFile } from '../shared/private-file.js';
import { dirname, join, resolve } from 'node:path';
import { emulatorsDir } from './paths.js';
import { env } from './env.js';
import { normalizeBaseUrl } from './url.js';
import { UserError, EXIT } from '../errors.js';

/** What a running emulator (`plugsmith emulator start`, `plugsmith dev`) wrote about itself. */
export interface EmulatorState {
  url: string;
  messagingUrl: string;
  token: string | null;
  apiKey: string | null;
  orgId: string | null;
  dataDir: string | null;
  /** The admin credential of this start (header `x-plugsmith-admin` on `/_emulator`). */
  adminToken: string;
  /** `st_…`, absent in files written by older versions. */
  storeId?: string;
  /** The project folder (holding plugsmith.json) the emulator belongs to; null outside a project. */
  project?: string | null;
  /** What the state file is keyed by: the project folder, else the data dir, else `memory-<pid>`. */
  key?: string;
  pid: number;
  startedAt: string;
}

const MANIFEST_FILE = 'plugsmith.json';

/** The project folder `from` is in: the nearest folder upward holding plugsmith.json, or null. */
export function projectRootOf(from: string = process.cwd()): string | null {
  let folder = resolve(from);
  for (;;) {
    if (existsSync(join(folder, MANIFEST_FILE))) return realOf(folder);
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The state file of the emulator keyed by `key` (a folder, or `memory-<pid>`): a hash of the folder's real path. */
function emulatorStateFile(key: string): string {
  const name = key.startsWith('memory-')
    ? key
    : createHash('sha256').update(realOf(key)).digest('hex').slice(0, 16);
  return join(emulatorsDir(), `${name}.json`);
}

/** What an emulator started here belongs to: the project of `from` (cwd) or of its data dir, else its data dir, else this process. */
export function emulatorOwner(options: { from?: string; dataDir?: string | null }): {
  project: string | null;
  key: string;
} {
  const project =
    projectRootOf(options.from) ?? (options.dataDir ? projectRootOf(options.dataDir) : null);
  if (project) return { project, key: project };
  if (options.dataDir) return { project: null, key: realOf(options.dataDir) };
  return { project: null, key: `memory-${process.pid}` };
}

/** Whether a process of this pid lives. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Writes the state file of an emulator this process runs (owner-only: it holds credentials), so other commands find it. */
export async function writeEmulatorState(
  emulator: Omit<EmulatorState, 'pid' | 'startedAt' | 'project' | 'key'>,
  owner: { project: string | null; key: string },
): Promise<EmulatorState & { path: string }> {
  // Only these fields: `emulator` may be a whole running emulator, with its methods.
  const { url, messagingUrl, token, apiKey, orgId, dataDir, adminToken, storeId } = emulator;
  const ownership = {
    project: owner.project,
    key: owner.key,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  };
  const state: EmulatorState = {
    url,
    messagingUrl,
    token,
    apiKey,
    orgId,
    dataDir,
    adminToken,
    storeId,
    ...ownership,
  };
  const path = emulatorStateFile(owner.key);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writePrivateFile(path, JSON.stringify(state, null, 2) + '\n');
  return { ...state, path };
}

/** Removes the state file at `path` if this process still owns it: another emulator may have taken the key since. */
export async function removeEmulatorState(path: string): Promise<void> {
  const current = (await readFile(path, 'utf8')
    .then(JSON.parse)
    .catch(() => null)) as { pid?: number } | null;
  if (current?.pid === process.pid) await rm(path, { force: true }).catch(() => undefined);
}

/** The state file at `path` when its process lives; a file left by a dead process is removed. */
async function readLive(path: string): Promise<(EmulatorState & { path: string }) | null> {
  const state = (await readFile(path, 'utf8')
    .then(JSON.parse)
    .catch(() => null)) as EmulatorState | null;
  if (typeof state?.pid !== 'number' || typeof state.url !== 'string') return null;
  if (!alive(state.pid)) {
    await rm(path, { force: true }).catch(() => undefined);
    return null;
  }
  return { ...state, path };
}

/** Every emulator whose state file names a living process, most recently started first; stale files are removed. */
export async function listEmulators(): Promise<Array<EmulatorState & { path: string }>> {
  const names = await readdir(emulatorsDir()).catch(() => [] as string[]);
  const states = await Promise.all(
    names.filter((n) => n.endsWith('.json')).map((n) => readLive(join(emulatorsDir(), n))),
  );
  return states
    .filter((s): s is EmulatorState & { path: string } => s !== null)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** The living emulator keyed by `key`, or null. */
export async function emulatorOf(key: string): Promise<(EmulatorState & { path: string }) | null> {
  return readLive(emulatorStateFile(key));
}

/** The emulator found, and the project whose emulator was looked for. */
interface EmulatorChoice {
  state: (EmulatorState & { path: string }) | null;
  project: string | null;
  /** Picked as the most recently started of several running (nothing named one, no project): how many others run. */
  others?: number;
}

let emulatorOption: string | undefined;

/** Set by the program from the global `--emulator <url|folder>` option. */
export function setEmulatorOption(value: string | undefined): void {
  emulatorOption = value;
}

/** The emulator the global `--emulator` option (else PLUGSMITH_EMULATOR) names, when one does. */
export function askedEmulator(): string | undefined {
  return emulatorOption ?? env.emulator();
}

/** The emulator this command acts on: the one `--emulator URL|FOLDER` names, else the project's of `from` (cwd), else the most recent. */
export async function chooseEmulator(from?: string): Promise<EmulatorChoice> {
  const asked = emulatorOption ?? env.emulator();
  if (asked !== undefined) return { state: await namedEmulator(asked), project: null };
  const project = projectRootOf(from);
  if (project) return { state: await emulatorOf(project), project };
  const running = await listEmulators();
  return {
    state: running[0] ?? null,
    project: null,
    ...(running.length > 1 ? { others: running.length - 1 } : {}),
  };
}

/** The running emulator that `--emulator` names: by URL (either of its URLs), else by folder (project or data dir). */
export async function namedEmulator(
  asked: string,
): Promise<(EmulatorState & { path: string }) | null> {
  const all = await listEmulators();
  if (/^https?:\/\//i.test(asked)) {
    const wanted = normalizeBaseUrl(asked);
    const found = all.find(
      (s) => normalizeBaseUrl(s.url) === wanted || normalizeBaseUrl(s.messagingUrl) === wanted,
    );
    if (!found)
      throw new UserError(
        `no emulator started on this machine answers at ${asked} (--emulator)${runningList(all)}; for one started elsewhere pass --base-url and PLUGSMITH_ADMIN_TOKEN`,
        EXIT.NOT_FOUND,
      );
    return found;
  }
  const folder = realOf(asked);
  const project = projectRootOf(folder);
  const found = all.find(
    (s) =>
      (s.project && (s.project === folder || s.project === project)) ||
      (s.dataDir && realOf(s.dataDir) === folder),
  );
  if (!found)
    throw new UserError(
      `no emulator runs for ${folder} (--emulator)${runningList(all)}: start one there with \`plugsmith dev\` or \`plugsmith emulator start\``,
      EXIT.NOT_FOUND,
    );
  return found;
}

function runningList(all: EmulatorState[]): string {
  return all.length
    ? ` (running: ${all.map((s) => `${s.url} for ${s.project ?? s.dataDir ?? 'an in-memory store'}`).join(', ')})`
    : ' (none is running)';
}

/** Why no emulator was found, and how to start one. */
export function noEmulatorMessage(choice: Pick<EmulatorChoice, 'project'>): string {
  return choice.project
    ? `no emulator runs for the project ${choice.project} (looked for the emulator of the folder holding its plugsmith.json): start one with \`plugsmith dev\` or \`plugsmith emulator start\` in that folder`
    : `no emulator is running (looked in ${emulatorsDir()}, outside any project): start one with \`plugsmith emulator start\` (or \`plugsmith dev\` in a project), or pass --emulator <url|folder>`;
}
