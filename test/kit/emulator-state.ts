import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { onTestFinished, vi } from 'vitest';
import { writeEmulatorState } from '../../src/config/emulators.js';
import { tempDir } from './index.js';

/** The state file of the emulator of `folder` (a project folder, or the data dir of one started outside a project) in a config dir. */
export function stateFileOf(configDir: string, folder: string): string {
  return join(
    configDir,
    'emulators',
    `${createHash('sha256').update(realpathSync(folder)).digest('hex').slice(0, 16)}.json`,
  );
}

/** The state file of an in-memory emulator started outside any project, by its pid. */
export function memoryStateFile(configDir: string, pid: number): string {
  return join(configDir, 'emulators', `memory-${pid}.json`);
}

/** The state files in a config dir (each a running emulator, or a stale one). */
export async function stateFiles(configDir: string): Promise<string[]> {
  try {
    return (await readdir(join(configDir, 'emulators')))
      .filter((n) => n.endsWith('.json'))
      .map((n) => join(configDir, 'emulators', n));
  } catch {
    return [];
  }
}

/** A config dir of the test's own (PLUGSMITH_CONFIG_DIR, no PLUGSMITH_ADMIN_TOKEN) holding the state file of an emulator this process runs at `url`. */
export async function emulatorRunningAt(url: string): Promise<{ path: string }> {
  vi.stubEnv('PLUGSMITH_CONFIG_DIR', await tempDir('plugsmith-cfg-'));
  vi.stubEnv('PLUGSMITH_ADMIN_TOKEN', '');
  onTestFinished(() => {
    vi.unstubAllEnvs();
  });
  const emulator = {
    url,
    messagingUrl: 'http://127.0.0.1:4011',
    token: null,
    apiKey: null,
    orgId: null,
    dataDir: null,
    adminToken: 'adm_test',
  };
  return writeEmulatorState(emulator, { project: null, key: `memory-${process.pid}` });
}
