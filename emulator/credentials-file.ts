import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Seed } from './seed.js';
import { writePrivateFile } from './store/private-file.js';

const FILE = 'seed.json';

/** Keeps the seed of a data dir (owner-only) so a restart prints the same token and API key: the store holds only their hashes. */
export async function saveCredentials(dataDir: string, seed: Seed): Promise<void> {
  await writePrivateFile(join(dataDir, FILE), JSON.stringify(seed, null, 2));
}

/** The seed a data dir was created from, if it was kept. */
export async function loadCredentials(dataDir: string): Promise<Seed | null> {
  try {
    return JSON.parse(await readFile(join(dataDir, FILE), 'utf8')) as Seed;
  } catch {
    return null;
  }
}
