import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from './record.js';

/**
 * Makes the data dir owner-only (0700, its files 0600, as older versions did not): it holds secrets and tokens. A symbolic link
 * in it is refused, never followed: a data dir from elsewhere (a cloned project) could otherwise have the emulator chmod, append
 * to or overwrite files outside it (`journal-0.jsonl` linked to a shell profile).
 */
export async function ownerOnlyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder someone else owns cannot be changed; the files written in it are still 0600.
  await chmod(dir, 0o700).catch(() => undefined);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => null);
    if (info?.isSymbolicLink())
      throw new StoreError(
        `${path} is a symbolic link: the emulator never reads or writes its data dir through a link; replace it with the file or folder it points to, or start with --data-dir elsewhere`,
      );
    if (info?.isFile() && (info.mode & 0o077) !== 0)
      await chmod(path, 0o600).catch(() => undefined);
  }
}
