import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { configDir } from '../config/paths.js';
import { writePrivateFile } from '../shared/private-file.js';

// A project's `.plugsmith/state.json` names the plugin it deployed to each target, and it travels with the project: a
// cloned project's file can name a plugin of whoever runs `deploy` in it (a public plugin's id is no secret), which the
// deploy would then update with the clone's manifest, webhook URL included. So this machine keeps its own record of
// which plugin it deployed from which folder to which remote platform, in the config dir, beside the profiles, under a
// random id that the state entry carries too (so a hostile file put where a project of yours was, at the same path,
// still cannot match it). An entry of the state file that no record here confirms is not acted on until the person
// confirms it (`deploy` asks, or `--adopt-state`). An emulator's entries need no record: they are keyed by the id of
// the store the emulator reports, which a cloned file's author cannot know.

/** One deploy from this machine: its random id (also in the state entry), the project folder (its real path), the state file's target key, the plugin. */
interface DeployRecord {
  id: string;
  project: string;
  target: string;
  pluginId: string;
  recordedAt: string;
}

/** The folder of the records, one file per project folder and target. */
export function deploysDir(): string {
  return join(configDir(), 'deploys');
}

/** The record's file: named by a hash of the folder and the target, so a path never becomes a file name. */
function recordPath(project: string, target: string): string {
  const name = createHash('sha256').update(`${project}\0${target}`).digest('hex').slice(0, 32);
  return join(deploysDir(), `${name}.json`);
}

/** The manifest's folder by its real path (a link to the project is the project). */
async function projectOf(manifestPath: string): Promise<string> {
  const folder = dirname(manifestPath);
  return realpath(folder).catch(() => folder);
}

/** What a state entry says of its deploy: the plugin, and the id of this machine's record of it (absent in files of older versions). */
export interface RecordedEntry {
  pluginId: string;
  recordId?: string;
}

/** Whether this machine recorded the deploy the state entry for `target` (a state key) describes, from the manifest's folder. */
export async function deployedFromHere(
  manifestPath: string,
  target: string,
  entry: RecordedEntry,
): Promise<boolean> {
  if (typeof entry.recordId !== 'string') return false;
  const project = await projectOf(manifestPath);
  try {
    const record = JSON.parse(
      await readFile(recordPath(project, target), 'utf8'),
    ) as Partial<DeployRecord>;
    return (
      record.id === entry.recordId &&
      record.project === project &&
      record.target === target &&
      record.pluginId === entry.pluginId
    );
  } catch {
    // None (never deployed from here, or a plugsmith older than these records), or not ours to read.
    return false;
  }
}

/**
 * Records that this machine deployed `pluginId` to `target` from the manifest's folder: the record's id, for the state
 * entry. Rejects when the config dir cannot be written.
 */
export async function recordDeployFromHere(
  manifestPath: string,
  target: string,
  pluginId: string,
): Promise<string> {
  const project = await projectOf(manifestPath);
  const record: DeployRecord = {
    id: randomBytes(16).toString('hex'),
    project,
    target,
    pluginId,
    recordedAt: new Date().toISOString(),
  };
  await mkdir(deploysDir(), { recursive: true, mode: 0o700 });
  await writePrivateFile(recordPath(project, target), JSON.stringify(record, null, 2) + '\n');
  return record.id;
}
