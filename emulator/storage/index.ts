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

/** Where the emulator's S3 settings come from (flags or environment); S3 is used when `s3Endpoint` is set. */
export interface S3Settings {
  /** e.g. http://127.0.0.1:9000 */
  s3Endpoint?: string;
  /** Default `minioadmin`, MinIO's out-of-the-box user. */
  s3AccessKey?: string;
  /** Default `minioadmin`. */
  s3SecretKey?: string;
  /** Default `plugsmith`; created when absent. */
  s3Bucket?: string;
  /** Default `us-east-1`. */
  s3Region?: string;
}

/** Everything `createObjectStorage` needs: the S3 settings, and what the embedded store needs otherwise. */
export interface StorageConfig extends S3Settings {
  /** Embedded store folder (`<dataDir>/objects`); omitted: a temporary folder removed on close. */
  rootDir?: string;
  /** The emulator's base URL, once it listens (embedded URLs point at the emulator itself). */
  baseUrl: () => string;
  /** Key of the embedded store's URL signatures. */
  secret: string | Buffer;
  /** Largest upload the embedded store accepts, default 100 MB. */
  maxBytes?: number;
}

/** The S3 store when `s3Endpoint` is set, the embedded store otherwise; call `init()` on it before use. */
export function createObjectStorage(config: StorageConfig): EmbeddedStorage | S3Storage {
  if (config.s3Endpoint) return new S3Storage(s3Options({ ...config, s3Endpoint: config.s3Endpoint }));
  return embeddedStorage(config);
}

export { openObjectStorage } from './open.js';
