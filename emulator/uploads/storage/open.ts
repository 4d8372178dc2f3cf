import { EmbeddedStorage } from './embedded.js';
import type { ObjectStorage, StorageConfig } from './types.js';
import type { S3StorageOptions } from './s3.js';

/** The S3 store's options from the emulator's settings, with MinIO's out-of-the-box defaults. */
export function s3Options(config: StorageConfig & { s3Endpoint: string }): S3StorageOptions {
  return {
    endpoint: config.s3Endpoint,
    accessKey: config.s3AccessKey ?? 'minioadmin',
    secretKey: config.s3SecretKey ?? 'minioadmin',
    bucket: config.s3Bucket ?? 'plugsmith',
    region: config.s3Region,
  };
}

/** The embedded store for the emulator's settings. */
export function embeddedStorage(config: StorageConfig): EmbeddedStorage {
  return new EmbeddedStorage({ rootDir: config.rootDir, baseUrl: config.baseUrl, secret: config.secret, maxBytes: config.maxBytes });
}

/**
 * Like `createObjectStorage`, but loads the S3 client (minio takes ~350 ms to import) only when
 * S3 is configured, so the default embedded store starts fast. The emulator uses this one.
 */
export async function openObjectStorage(config: StorageConfig): Promise<ObjectStorage> {
  if (config.s3Endpoint) {
    const { S3Storage } = await import('./s3.js');
    return new S3Storage(s3Options({ ...config, s3Endpoint: config.s3Endpoint }));
  }
  return embeddedStorage(config);
}
