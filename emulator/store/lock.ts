import { readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from './record.js';

/** The file that keeps a second emulator off a data dir: it holds the owner's pid. */
const LOCK_FILE = 'emulator.lock';

/** Data dirs this process holds: a lock naming our pid is ours only if listed (a restarted container often reuses the pid). */
const heldDirs = new Set<string>();

/** Locks a data dir for this process; returns the key to release it with. */
export function acquireLock(dir: string): string {
  const key = realpathSync(dir);
  if (heldDirs.has(key)) {
    throw new StoreError(
      `the data dir ${dir} is already open in this process; close the other emulator first, or pass another dataDir`,
    );
  }
  const lock = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      heldDirs.add(key);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let pid = 0;
    try {
      pid = Number(readFileSync(lock, 'utf8').trim());
    } catch {
      // removed meanwhile: try again
    }
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new StoreError(
        `the data dir ${dir} is in use by another emulator (pid ${pid}); stop it first, or pass another --data-dir (if process ${pid} is not an emulator, delete ${lock})`,
      );
    }
    // The lock of a process that died: take it over.
    try {
      unlinkSync(lock);
    } catch {
      // removed meanwhile
    }
  }
  throw new StoreError(
    `could not lock the data dir ${dir}; another emulator may be starting there`,
  );
}

export function releaseLock(dir: string, key: string): void {
  heldDirs.delete(key);
  try {
    unlinkSync(join(dir, LOCK_FILE));
  } catch {
    // already gone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
