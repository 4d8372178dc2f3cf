import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, renameSync, type ReadStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, encodeKeyPath } from './keys.js';
import { signedQuery, verifyQuery, type Verdict } from './signing.js';
import {
  checkExpiresIn,
  StorageError,
  type ObjectInfo,
  type ObjectStorage,
  type PresignGetOptions,
  type PresignPutOptions,
} from './types.js';
import { MAX_FILE_BYTES } from '#contract';

export interface EmbeddedStorageOptions {
  /** Folder for the objects (the emulator passes `<dataDir>/objects`); omitted: a temporary folder removed by `close()`. */
  rootDir?: string;
  /** The emulator's base URL, e.g. http://127.0.0.1:4010; a function because the port is known only after listen. */
  baseUrl: () => string;
  /** Key of the URL signatures (HMAC-SHA256). */
  secret: string | Buffer;
}

/** The shortest key of the URL signatures accepted. */
const MIN_SECRET_BYTES = 16;

/** Where the emulator registers `embeddedStorageRoutes`. */
const ROUTE_PREFIX = '/_storage';

/** A stored object opened for reading. */
export interface OpenedObject {
  size: number;
  contentType?: string;
  /** Reads the bytes; call at most once. */
  stream(): ReadStream;
  /** Releases the file when the bytes are not wanted (HEAD). */
  close(): Promise<void>;
}

/** A write whose `beforeCommit` check refused it when its body was complete: nothing was replaced. */
export class WriteRefusedError extends StorageError {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'WriteRefusedError';
  }
}

/** The body arrived larger than allowed; the partial file is already gone. */
export class ObjectTooLargeError extends StorageError {
  constructor(readonly limit: number) {
    super(`The upload is larger than ${limit} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

interface Sidecar {
  key: string;
  size: number;
  contentType?: string;
  uploadedAt: string;
}

/** Objects as files named by the SHA-256 of their key (no key can clash on any filesystem), each with a JSON sidecar of key and type. */
export class EmbeddedStorage implements ObjectStorage {
  readonly kind = 'embedded' as const;
  /** Largest object any upload writes (the spec's 100 MB, 10^8 bytes); a presigned `maxBytes` can only lower it. */
  readonly maxBytes = MAX_FILE_BYTES;
  private root: string | undefined;
  private initialized = false;
  /** Without a folder: the temporary one, made at the first write (most in-memory emulators never store an object). */
  private temporaryRoot: Promise<string> | undefined;
  /** The settles running per key, which uploads to the key wait for before they commit (settles only read: they do not wait for each other). */
  private readonly settling = new Map<string, Set<Promise<unknown>>>();

  constructor(private readonly options: EmbeddedStorageOptions) {
    // An empty or short key would let anyone sign upload and download URLs.
    if (Buffer.byteLength(options.secret) < MIN_SECRET_BYTES)
      throw new TypeError(
        `the embedded storage needs a signing secret of at least ${MIN_SECRET_BYTES} bytes`,
      );
    this.root = options.rootDir;
  }

  async init(): Promise<void> {
    this.initialized = true;
    if (this.root !== undefined) await prepareRoot(this.root);
  }

  async presignPut(key: string, options: PresignPutOptions): Promise<string> {
    assertValidKey(key);
    const maxBytes = Math.min(options.maxBytes ?? this.maxBytes, this.maxBytes);
    const expires = expiryOf(options.expiresInSeconds, options.issuedAt);
    return `${this.objectUrl(key)}?${signedQuery(this.options.secret, { method: 'PUT', key, expires, maxBytes })}`;
  }

  async presignGet(key: string, options: PresignGetOptions): Promise<string> {
    assertValidKey(key);
    const expires = expiryOf(options.expiresInSeconds, options.issuedAt);
    return `${this.objectUrl(key)}?${signedQuery(this.options.secret, { method: 'GET', key, expires, fileName: options.fileName })}`;
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return this.objectUrl(key);
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const opened = await this.open(key);
    if (!opened) return null;
    await opened.close();
    return opened.contentType === undefined
      ? { size: opened.size }
      : { size: opened.size, contentType: opened.contentType };
  }

  async settle<T>(key: string, record: (info: ObjectInfo | null) => Promise<T>): Promise<T> {
    assertValidKey(key);
    let running = this.settling.get(key);
    if (!running) {
      running = new Set();
      this.settling.set(key, running);
    }
    const settled = this.stat(key).then(record);
    running.add(settled);
    try {
      return await settled;
    } finally {
      running.delete(settled);
      if (running.size === 0) this.settling.delete(key);
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    const root = this.existingRoot();
    if (root === undefined) return;
    const path = this.pathOf(root, key);
    await rm(path, { force: true });
    await rm(path + '.json', { force: true });
  }

  async close(): Promise<void> {
    // Closed: a later write must not make a new temporary folder that nothing would remove.
    this.initialized = false;
    if (this.temporaryRoot !== undefined)
      await rm(await this.temporaryRoot, { recursive: true, force: true });
  }

  /** Checks a request's signature query for `method` on `key` (used by the routes). */
  verify(method: 'GET' | 'PUT', key: string, query: Record<string, unknown>): Verdict {
    return verifyQuery(this.options.secret, method, key, query, Math.floor(Date.now() / 1000));
  }

  /**
   * Streams a body to a temporary file (ObjectTooLargeError past `limit`), then renames it into place. `beforeCommit` runs with no
   * `settle` of the key running, in the tick of the renames; if it throws nothing is replaced (an upload after completion is refused).
   */
  async write(
    key: string,
    body: AsyncIterable<Buffer | string>,
    limit: number,
    contentType?: string,
    beforeCommit?: () => void,
  ): Promise<ObjectInfo> {
    assertValidKey(key);
    const root = await this.writableRoot();
    const temporary = join(root, 'tmp', randomUUID());
    let size = 0;
    try {
      await pipeline(
        async function* count() {
          for await (const chunk of body) {
            size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
            if (size > limit) throw new ObjectTooLargeError(limit);
            yield chunk;
          }
        },
        createWriteStream(temporary, { flags: 'wx', mode: 0o600 }),
      );
      const sidecar: Sidecar = { key, size, uploadedAt: new Date().toISOString() };
      if (contentType) sidecar.contentType = contentType;
      await writeFile(temporary + '.json', JSON.stringify(sidecar), { mode: 0o600 });
      const path = this.pathOf(root, key);
      for (let running = this.settling.get(key); running; running = this.settling.get(key))
        await Promise.allSettled(running);
      beforeCommit?.();
      renameSync(temporary, path);
      renameSync(temporary + '.json', path + '.json');
    } catch (error) {
      await rm(temporary, { force: true });
      await rm(temporary + '.json', { force: true });
      throw error;
    }
    return contentType ? { size, contentType } : { size };
  }

  /** Opens an object for reading, or null when there is none. */
  async open(key: string): Promise<OpenedObject | null> {
    assertValidKey(key);
    const root = this.existingRoot();
    if (root === undefined) return null;
    const path = this.pathOf(root, key);
    const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!handle) return null;
    try {
      const { size } = await handle.stat();
      const contentType = (await readSidecar(path + '.json'))?.contentType;
      return {
        size,
        contentType,
        stream: () => handle.createReadStream(),
        close: () => handle.close(),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private objectUrl(key: string): string {
    return `${this.options.baseUrl().replace(/\/+$/, '')}${ROUTE_PREFIX}/objects/${encodeKeyPath(key)}`;
  }

  private pathOf(root: string, key: string): string {
    return join(root, 'objects', createHash('sha256').update(key).digest('hex'));
  }

  /** The folder, or undefined while the temporary one is not made (nothing was written yet). */
  private existingRoot(): string | undefined {
    if (!this.initialized)
      throw new StorageError('The embedded object storage is used before init()');
    return this.root;
  }

  /** The folder, made now when it is the temporary one and this is the first write. */
  private async writableRoot(): Promise<string> {
    const root = this.existingRoot();
    if (root !== undefined) return root;
    this.temporaryRoot ??= mkdtemp(join(tmpdir(), 'plugsmith-objects-')).then(async (made) => {
      await prepareRoot(made);
      return made;
    });
    this.root = await this.temporaryRoot;
    return this.root;
  }
}

/** Makes the storage folder and its parts, owner-only like the rest of a data dir: private objects are readable only through signed URLs. */
async function prepareRoot(root: string): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  await chmod(root, 0o700).catch(() => undefined);
  await mkdir(join(root, 'objects'), { recursive: true, mode: 0o700 });
  await mkdir(join(root, 'tmp'), { recursive: true, mode: 0o700 });
}

function expiryOf(expiresInSeconds: number, issuedAt: Date = new Date()): number {
  return Math.floor(issuedAt.getTime() / 1000) + checkExpiresIn(expiresInSeconds);
}

async function readSidecar(path: string): Promise<Sidecar | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Sidecar;
  } catch {
    // A missing or torn sidecar only loses the content type; the bytes are still served.
    return null;
  }
}
