import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Creates the data dir owner-only (0700), or makes an existing one so, with the files directly
 * in it 0600 (a data dir written by an older version had 0755/0644): it holds webhook secrets,
 * installation tokens and the signing key of storage URLs. Files the store writes are created 0600.
 */
export async function ownerOnlyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder someone else owns cannot be changed; the files written in it are still 0600.
  await chmod(dir, 0o700).catch(() => undefined);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile() && (info.mode & 0o077) !== 0) await chmod(path, 0o600).catch(() => undefined);
  }
}
