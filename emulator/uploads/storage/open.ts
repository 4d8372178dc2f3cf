import { EmbeddedStorage, type EmbeddedStorageOptions } from './embedded.js';
import type { ObjectStorage, S3Settings } from './types.js';

/** The S3 store when `s3Endpoint` is set (MinIO's default keys), else the embedded one; minio (~350 ms to load) is imported only then. */
export async function openObjectStorage(
  config: S3Settings & EmbeddedStorageOptions,
): Promise<ObjectStorage> {
  if (!config.s3Endpoint) return new EmbeddedStorage(config);
  const { S3Storage } = await import('./s3.js');
  return new S3Storage({ ...config, s3Endpoint: config.s3Endpoint });
}
