/**
 * The object storage interface the upload routes call. Two backends implement it: the
 * embedded store (files on disk, served by the emulator itself) and S3 (MinIO, AWS, s3rver).
 *
 * Public and private objects are told apart by their key: keys under `public/` are readable
 * without a signature (through `publicUrl`), every other key only through a signed URL.
 * A file's visibility is fixed when its record is created, so the key can carry it; this
 * works the same way on both backends and needs no per-object ACL (see `objectKey`).
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
   * Reads the object's metadata and runs `record` with it (a file record's write), as one step
   * against that object: on the embedded store no upload to `key` is put in place from the read
   * until `record` settles, so an upload commits before (and is what `record` sees) or after (and
   * meets the written record). Settles of one key do not wait for each other. S3 takes uploads without the emulator, which cannot hold them back:
   * there it is `stat` then `record`.
   */
  settle<T>(key: string, record: (info: ObjectInfo | null) => Promise<T>): Promise<T>;
  /** Removes an object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Releases what the backend holds (connections, a temporary folder). */
  close(): Promise<void>;
}

/** Options of `presignPut`. */
export interface PresignPutOptions {
  expiresInSeconds: number;
  /**
   * The content type the uploader is expected to send. Neither backend signs it (a mismatch
   * would only break uploads): the stored type is the Content-Type header of the PUT.
   */
  contentType?: string;
  /**
   * Largest body accepted. The embedded store enforces it while streaming (413); S3 presigned
   * PUTs cannot, so the caller checks `stat().size` after the upload instead.
   */
  maxBytes?: number;
  /** When the URL's validity starts; defaults to now (tests sign in the past to get an expired URL). */
  issuedAt?: Date;
}

/** Options of `presignGet`. */
export interface PresignGetOptions {
  expiresInSeconds: number;
  /**
   * The content type the object is served with, whatever type its uploader sent (S3: the signed
   * `response-content-type`; the embedded store reads it from the file record instead).
   */
  contentType?: string;
  /** Name offered to the browser in `Content-Disposition: attachment`. */
  fileName?: string;
  /** When the URL's validity starts; defaults to now. */
  issuedAt?: Date;
}

/**
 * What the emulator's file records say about objects, asked by the embedded store's routes: the
 * type an object is served with (the record's, not the uploader's header) and whether a signed
 * PUT may still write it (not once its file is uploaded or processed).
 */
export interface ObjectRecords {
  /** How to serve the object at `key`: its record's content type and file name; null when no record has the key. */
  served(key: string): { contentType: string | null; fileName: string } | null;
  /** Why a PUT to `key` is refused, with the status to answer; null when the upload may go on. */
  putRefusal(key: string): { status: 404 | 409; message: string } | null;
}

/** What `stat` reports. */
export interface ObjectInfo {
  size: number;
  contentType?: string;
}

/** Largest object either backend takes by default: the spec's 100 MB file size limit. */
export const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** Longest validity of a presigned URL (S3 signature V4 allows at most seven days). */
export const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;

/** Returns the validity if it is a whole number of seconds from 1 to MAX_EXPIRES_SECONDS; throws RangeError otherwise. */
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
