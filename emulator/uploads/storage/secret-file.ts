import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivateFile } from '#shared/private-file';
import { StoreError } from '../../store/record.js';

/** The file of a data dir that keeps the key of the embedded store's URL signatures. */
export const STORAGE_SECRET_FILE = 'storage-secret';

/** The key's size in bytes; kept as its base64 text (44 characters). */
const SECRET_BYTES = 32;
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;

/**
 * The key of the embedded store's URL signatures: kept in the data dir so URLs survive a restart, new per start in memory.
 * A missing or empty file (an earlier start stopped while writing it) gets a new key, written atomically, before any URL is
 * signed; any other content that is not a 32-byte key is refused, naming the file: it never becomes a short or empty key.
 */
export async function storageSecret(dataDir: string | undefined): Promise<Buffer> {
  if (!dataDir) return randomBytes(SECRET_BYTES);
  const path = join(dataDir, STORAGE_SECRET_FILE);
  let text: string | null;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    text = null;
  }
  if (text === null || text === '') {
    const secret = randomBytes(SECRET_BYTES);
    await writePrivateFile(path, secret.toString('base64'));
    return secret;
  }
  const secret = Buffer.from(text, 'base64');
  if (!BASE64_OF_32_BYTES.test(text) || secret.length !== SECRET_BYTES)
    throw new StoreError(
      `the storage secret ${path} is not a ${SECRET_BYTES}-byte key in base64 (${text.length} characters, damaged or edited); delete the file to start with a new key (upload and download URLs signed before stop working), or start with --data-dir elsewhere`,
    );
  return secret;
}
