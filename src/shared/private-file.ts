import { randomBytes } from 'node:crypto';
import { link, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file that holds a secret (a signing key, credentials, a profile's token), whole or not at all: a new 0600 file
 * under an unguessable name (no planted link or looser file is reused), synced, renamed over the target (a link there is
 * replaced, not followed), the folder synced. A crash or a full disk leaves the old file or the new one, never an empty or
 * half-written key. The CLI's config files and the emulator's data dir both write with it.
 */
export async function writePrivateFile(
  path: string,
  text: string,
  options: {
    /** false: a file (or link) already at `path` is kept and the write fails with EEXIST, however close two writers race. */
    replace?: boolean;
  } = {},
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temporary, 'wx', 0o600);
  try {
    try {
      // The umask may narrow the mode at creation, never widen it; chmod makes it exactly 0600.
      await file.chmod(0o600);
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    if (options.replace === false) {
      // A hard link is made only where nothing is: the name is taken whole, or not at all.
      await link(temporary, path);
      await rm(temporary);
    } else await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Makes a rename in `folder` durable. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
