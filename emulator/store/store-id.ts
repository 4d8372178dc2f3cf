import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivateFile } from '#shared/private-file';

const FILE = 'store-id';
const PATTERN = /^st_[0-9a-z]{20}$/;

/** A new store id: `st_` and 20 random base-36 characters. */
export function newStoreId(): string {
  let id = 'st_';
  for (const byte of randomBytes(20)) id += (byte % 36).toString(36);
  return id;
}

/** The store's stable identity, kept in its data dir (the same store on another port is the same), new per start in memory. */
export async function storeIdOf(dataDir: string | undefined): Promise<string> {
  if (!dataDir) return newStoreId();
  const path = join(dataDir, FILE);
  try {
    const kept = (await readFile(path, 'utf8')).trim();
    if (PATTERN.test(kept)) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = newStoreId();
  await writePrivateFile(path, id + '\n');
  return id;
}
