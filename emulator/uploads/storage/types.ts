/**
 * Object storage for uploads: embedded (files served by the emulator) or S3. A key under `public/` is readable unsigned, any other
 * only by signed URL: visibility is fixed when the record is created, so the key carries it and no per-object ACL is needed.
 */
export interface ObjectStorage {
  readonly kind: 'embedded' | 's3';
  /** Prepares the backend (creates the folder or bucket and its public-read policy); call once before use. */
  init(): Promise<void>;
  /** A URL that accepts one HTTP PUT of the object's bytes until it expires. */
  presignPut(key: string, options: PresignPutOptions): Promise<string>;
  /** A URL that serves the object (GET, also HEAD on the embedded store) until it expires. */
  presignGet(key: string, options: PresignGetOptions): Promise<string>;
  /** The unsigned URL of an object; it serves only keys under `public/`. */
  publicUrl(key: string): string;
  /** Size and content type of a stored object, or null when there is none. */
  stat(key: string): Promise<ObjectInfo | null>;
  /**
   * Runs `record` (a file record's write) with the object's metadata in one step: on the embedded store an upload commits
   * before the read or after `record` settles, never between; on S3 (uploads out of our reach) it is `stat`, then `record`.
   */
  settle<T>(key: string, record: (info: ObjectInfo | null) => Promise<T>): Promise<T>;
  /** Removes an object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Releases what the backend holds (connections, a temporary folder). */
  close(): Promise<void>;
}

export interface PresignPutOptions {
  expiresInSeconds: number;
  /** Largest body accepted: the embedded store enforces it while streaming (413); S3 cannot, so the caller checks `stat().size`. */
  maxBytes?: number;
  /** When the URL's validity starts; defaults to now (tests sign in the past to get an expired URL). */
  issuedAt?: Date;
}

export interface PresignGetOptions {
  expiresInSeconds: number;
  /** The type to serve the object with, whatever its uploader sent (S3 signs it; the embedded store reads the file record). */
  contentType?: string;
  /** Name offered to the browser in `Content-Disposition: attachment`. */
  fileName?: string;
  issuedAt?: Date;
}

/** What the file records say about objects, asked by the embedded store's routes. */
export interface ObjectRecords {
  /** How to serve the object at `key`: its record's content type and file name; null when no record has the key. */
  served(key: string): { contentType: string | null; fileName: string } | null;
  /** Why a PUT to `key` is refused, with the status to answer; null when the upload may go on. */
  putRefusal(key: string): { status: 404 | 409; message: string } | null;
}

export interface ObjectInfo {
  size: number;
  contentType?: string;
}

/** Longest validity of a presigned URL (S3 signature V4 allows at most seven days). */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

/** Returns the validity if it is a whole number of seconds from 1 to 7 days; throws RangeError otherwise. */
export function checkExpiresIn(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_EXPIRES_SECONDS) {
    throw new RangeError(`expiresInSeconds must be an integer from 1 to ${MAX_EXPIRES_SECONDS}`);
  }
  return seconds;
}

/** A storage failure with a message that says what to do (bad configuration, unreachable server). */
export class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
  }
}

/** The emulator's S3 settings (flags or environment); S3 is used when `s3Endpoint` is set, e.g. http://127.0.0.1:9000. */
export interface S3Settings {
  s3Endpoint?: string;
  /** Default `minioadmin`, MinIO's out-of-the-box user, as is the secret key's. */
  s3AccessKey?: string;
  s3SecretKey?: string;
  /** Default `plugsmith`; created when absent. */
  s3Bucket?: string;
  /** Default `us-east-1`. */
  s3Region?: string;
}
