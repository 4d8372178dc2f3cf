import { createHash, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as zlib from 'node:zlib';
import { Low, type Adapter } from 'lowdb';
import type { BaseRecord } from './record.js';

/**
 * The on-disk layout's version (a newer one is refused). 1 and 3: one JSON document `{ schemaVersion, generation,
 * collections }`, which 3 ends with `"sha256"`, the hash of the text before it (3 without it, from older plugsmith, is read and
 * rewritten with it); 2: a line per record with a CRC-32, read and rewritten as 3.
 */
export const SCHEMA_VERSION = 3;

/** What a snapshot holds: each collection's records. */
export interface Snapshot {
  schemaVersion: number;
  generation: number;
  collections: Record<string, BaseRecord[]>;
  /** Whether the file carried a checksum (written by this layout's writer); false for older files, which are rewritten. */
  checked?: boolean;
}

/** A snapshot that cannot be read, with the reason. */
export class SnapshotError extends Error {}

/** The checksum field that ends a snapshot: `,"sha256":"<64 hex digits>"}`. */
const CHECKSUM_TAIL = /,"sha256":"([0-9a-f]{64})"\}\s*$/;
const DOCUMENT_KEYS = new Set(['schemaVersion', 'generation', 'collections', 'sha256']);

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The snapshot's text: compact JSON (lowdb's JSONFile indents, which doubles a large snapshot), ending with its checksum. */
function stringify(data: Snapshot): string {
  const body = JSON.stringify({
    schemaVersion: data.schemaVersion,
    generation: data.generation,
    collections: data.collections,
  }).slice(0, -1);
  return `${body},"sha256":"${sha256(body)}"}`;
}

/**
 * lowdb's adapter for the snapshot: reads and checks it, and writes it whole or not at all, owner-only from its first byte:
 * a new 0600 temporary file, synced, renamed into place (after `beforeRename`), the folder synced; a failed write (a full
 * disk) leaves no temporary file behind.
 */
class SnapshotFile implements Adapter<Snapshot> {
  constructor(
    private readonly path: string,
    private readonly beforeRename?: () => Promise<void>,
  ) {}

  async read(): Promise<Snapshot | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return parse(text);
  }

  async write(data: Snapshot): Promise<void> {
    const temporary = temporaryPathOf(this.path);
    const file = await open(temporary, 'wx', 0o600);
    try {
      try {
        // The umask may narrow the mode at creation, never widen it; chmod makes it exactly 0600.
        await file.chmod(0o600);
        await file.writeFile(stringify(data));
        await file.sync();
      } finally {
        await file.close();
      }
      await this.beforeRename?.();
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await fsyncPath(dirname(this.path));
  }
}

/** A temporary file beside `path` under an unguessable name (never one planted there before). */
function temporaryPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Whether a file name is one of a snapshot's temporary files (left by a crash mid-write; removed at open). */
export function isSnapshotTemporary(name: string, snapshotName: string): boolean {
  if (name === `${snapshotName}.next`) return true;
  return name.startsWith(`.${snapshotName}.`) && name.endsWith('.tmp');
}

/** Writes the snapshot with lowdb through an adapter that syncs it and makes it owner-only, renaming it into place. */
export async function writeSnapshot(
  path: string,
  data: Snapshot,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  await new Low(new SnapshotFile(path, beforeRename), data).write();
}

/** The snapshot at `path`, null when there is none; a layout-2 snapshot comes back in today's shape. */
export async function readSnapshot(path: string): Promise<Snapshot | null> {
  // Low.read() only hands the adapter's answer on (and keeps its default when there is none): ask the adapter itself.
  const document: (Snapshot & { records?: unknown }) | null = await new SnapshotFile(path).read();
  if (document === null) return null;
  if (document.schemaVersion === 2 && Array.isArray(document.records))
    return fromLayout2(path, document.generation, document.records);
  if (
    typeof document.collections !== 'object' ||
    document.collections === null ||
    Array.isArray(document.collections)
  ) {
    if (document.schemaVersion > SCHEMA_VERSION)
      return { schemaVersion: document.schemaVersion, generation: 0, collections: {} };
    throw new SnapshotError('it is not a plugsmith store snapshot (no collections)');
  }
  if (document.schemaVersion > SCHEMA_VERSION) return document;
  if (!Number.isSafeInteger(document.generation) || document.generation < 0)
    throw new SnapshotError('its generation is not a whole number');
  for (const [name, records] of Object.entries(document.collections)) {
    if (!Array.isArray(records)) throw new SnapshotError(`its collection ${name} is not an array`);
    records.forEach((record, i) => {
      const problem = recordProblem(record);
      if (problem) throw new SnapshotError(`record ${i} of its collection ${name} ${problem}`);
    });
  }
  return document;
}

/** What is wrong with a stored record (an object with a string id), or null. */
export function recordProblem(record: unknown): string | null {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return 'is not an object';
  const id = (record as { id?: unknown }).id;
  if (typeof id !== 'string' || id === '') return 'has no id';
  return null;
}

function parse(text: string): Snapshot {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`it is not valid JSON (${(error as Error).message})`);
  }
  if (
    typeof document !== 'object' ||
    document === null ||
    Array.isArray(document) ||
    typeof (document as Snapshot).schemaVersion !== 'number'
  ) {
    throw new SnapshotError('it is not a plugsmith store snapshot (no schemaVersion)');
  }
  const snapshot = document as Snapshot & { sha256?: unknown; records?: unknown };
  if (snapshot.schemaVersion > SCHEMA_VERSION || Array.isArray(snapshot.records)) return snapshot;
  for (const key of Object.keys(snapshot))
    if (!DOCUMENT_KEYS.has(key))
      throw new SnapshotError(
        `it has a field ${JSON.stringify(key)} no snapshot has (damaged or edited)`,
      );
  // Any file with a checksum is checked, whatever version it claims (a flipped version digit is caught too).
  if ('sha256' in snapshot) {
    // Looked for in the last bytes only: a snapshot can be hundreds of megabytes.
    const tailStart = Math.max(0, text.length - 200);
    const tail = CHECKSUM_TAIL.exec(text.slice(tailStart));
    const body = tail ? text.slice(0, tailStart + tail.index) : '';
    if (!tail || tail[1] !== snapshot.sha256 || sha256(body) !== tail[1])
      throw new SnapshotError('its checksum does not match its content (damaged or edited)');
    delete snapshot.sha256;
    snapshot.checked = true;
  }
  return snapshot;
}

/**
 * Layout 2: `{"schemaVersion":2,"generation":…,"bytes":…,"crc32":…,"records":[` on the first line (with the size and
 * checksum of the rest), then a `["collection","id",{record}]` line per record (`["#index",…]` lines skipped).
 */
async function fromLayout2(
  path: string,
  generation: number,
  records: unknown[],
): Promise<Snapshot> {
  const bytes = await readFile(path);
  const body = bytes.subarray(bytes.indexOf(10) + 1);
  const head = JSON.parse(`${bytes.subarray(0, bytes.indexOf(10)).toString()}]}`) as {
    bytes?: number;
    crc32?: number | null;
  };
  if (body.length !== head.bytes)
    throw new SnapshotError(
      `it is ${body.length} bytes long after its first line where it should be ${head.bytes} (cut short or edited)`,
    );
  const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  if (crc32 && typeof head.crc32 === 'number' && crc32(body) !== head.crc32)
    throw new SnapshotError('its checksum does not match its content (damaged or edited)');
  // Keyed by names from the file: no prototype, so `__proto__` is a collection like any other.
  const collections = Object.create(null) as Record<string, BaseRecord[]>;
  for (const line of records) {
    if (!Array.isArray(line) || typeof line[0] !== 'string')
      throw new SnapshotError('a line of it is not a record');
    if (line[0] === '#index') continue;
    const problem = recordProblem(line[2]);
    if (problem) throw new SnapshotError(`a record line of its collection ${line[0]} ${problem}`);
    collections[line[0]] ??= [];
    collections[line[0]].push(line[2] as BaseRecord);
  }
  return { schemaVersion: 2, generation, collections };
}

/** fsyncs a file or a folder (a folder's sync makes a rename or an unlink in it durable). */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
