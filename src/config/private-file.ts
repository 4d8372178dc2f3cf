import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a secrets file, owner-only, whole or not at all: a new 0600 file under an unguessable name (no planted
 * link or looser file is reused), renamed over the target (a link there is replaced, not followed).
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
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
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
