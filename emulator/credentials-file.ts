import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Seed } from './seed.js';
import { writePrivateFile } from '#shared/private-file';
import { StoreError } from './store/record.js';

const FILE = 'seed.json';

/** Keeps the seed of a data dir (owner-only, written whole) so a restart prints the same token and API key: the store holds only their hashes. */
export async function saveCredentials(dataDir: string, seed: Seed): Promise<void> {
  await writePrivateFile(join(dataDir, FILE), JSON.stringify(seed, null, 2));
}

/**
 * The seed a data dir was created from, null when none was kept. A damaged one (empty, not JSON, not a seed) refuses the start
 * naming the file: read as missing, the emulator would print a token and API key the store does not hold.
 */
export async function loadCredentials(dataDir: string): Promise<Seed | null> {
  const path = join(dataDir, FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let seed: unknown;
  try {
    seed = JSON.parse(text);
  } catch {
    seed = null;
  }
  const looksLikeSeed =
    typeof seed === 'object' && seed !== null && Array.isArray((seed as Seed).tokens);
  if (!looksLikeSeed)
    throw new StoreError(
      `the credentials file ${path} is damaged (${text.trim() === '' ? 'empty' : 'not a seed'}): restore it from a backup, or start with --data-dir elsewhere; deleting it starts this data dir with new credentials printed that its store does not hold`,
    );
  return seed as Seed;
}
