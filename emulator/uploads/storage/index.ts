/**
 * Object storage for uploads. How the emulator wires it:
 *
 *   const storage = createObjectStorage({ ...s3Settings, rootDir: dataDir && join(dataDir, 'objects'),
 *                                         baseUrl: () => managementUrl, secret });
 *   await storage.init();
 *   if (storage.kind === 'embedded') await app.register(embeddedStorageRoutes(storage), { prefix: '/_storage' });
 *   …
 *   await storage.close();   // after the apps close
 *
 * Upload routes build keys with `objectKey(fileId, fileName, isPublic)`, hand out
 * `presignPut` / `presignGet` / `publicUrl`, and check `stat` before accepting UPLOADED.
 */
import { EmbeddedStorage } from './embedded.js';
import { S3Storage } from './s3.js';
import { embeddedStorage, s3Options } from './open.js';
import type { StorageConfig } from './types.js';

export * from './types.js';
export { EmbeddedStorage, ObjectTooLargeError, type EmbeddedStorageOptions, type OpenedObject } from './embedded.js';
export { embeddedStorageRoutes } from './embedded-routes.js';
export { S3Storage, publicReadStatement, PUBLIC_READ_STATEMENT_ID, type S3StorageOptions } from './s3.js';
export {
  InvalidKeyError,
  PRIVATE_PREFIX,
  PUBLIC_PREFIX,
  assertValidKey,
  isPublicKey,
  keyProblem,
  objectKey,
} from './keys.js';

/** The S3 store when `s3Endpoint` is set, the embedded store otherwise; call `init()` on it before use. */
export function createObjectStorage(config: StorageConfig): EmbeddedStorage | S3Storage {
  if (config.s3Endpoint) return new S3Storage(s3Options({ ...config, s3Endpoint: config.s3Endpoint }));
  return embeddedStorage(config);
}

export { openObjectStorage } from './open.js';
