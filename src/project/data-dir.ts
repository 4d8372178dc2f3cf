import { lstat, readlink } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { UserError, EXIT } from '../errors.js';

/** Where a project keeps its emulator's store, relative to the project (or the folder `emulator start` runs in). */
export const DEFAULT_DATA_DIR = '.plugsmith/emulator';

/**
 * The data dir to use: `given` (from --data-dir) as the user wrote it, else the project's default under `base`, which must not
 * pass through a symbolic link: a cloned project whose `.plugsmith/emulator` links to a folder of the user's would have the
 * emulator make that folder and its files owner-only and write its store into it. Throws a UserError naming the link.
 */
export async function dataDirFor(base: string, given: string | undefined): Promise<string> {
  if (given !== undefined) return isAbsolute(given) ? given : join(base, given);
  let current = base;
  for (const part of DEFAULT_DATA_DIR.split('/')) {
    current = join(current, part);
    const info = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    // Not there yet: the emulator creates it (and the folders below) as plain folders.
    if (info === null) break;
    if (info.isSymbolicLink()) {
      const target = await readlink(current).catch(() => '?');
      const shown = relative(base, current) || current;
      throw new UserError(
        `${shown} is a symbolic link (to ${target}): the emulator never reaches its data dir through a link it was not given, ` +
          `as a project from elsewhere could point it at your own files. Remove the link (\`rm ${current}\`) to use a plain folder, ` +
          `or pass --data-dir <dir> to choose the folder yourself`,
        EXIT.USAGE,
      );
    }
    if (!info.isDirectory())
      throw new UserError(
        `${relative(base, current) || current} is not a folder; move it away, or pass --data-dir <dir>`,
        EXIT.USAGE,
      );
  }
  return join(base, DEFAULT_DATA_DIR.split('/').join(sep));
}
