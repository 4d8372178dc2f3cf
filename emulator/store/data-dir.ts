import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Makes the data dir owner-only (0700, its files 0600, as older versions did not): it holds secrets and tokens. */
export async function ownerOnlyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder someone else owns cannot be changed; the files written in it are still 0600.
  await chmod(dir, 0o700).catch(() => undefined);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile() && (info.mode & 0o077) !== 0)
      await chmod(path, 0o600).catch(() => undefined);
  }
}
