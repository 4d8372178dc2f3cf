import { chmod, open, readFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as zlib from 'node:zlib';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';
import type { BaseRecord } from './record.js';

/**
 * The on-disk layout's version (a newer one is refused). 1 and 3: one JSON document `{ schemaVersion,
 * generation, collections }`; 2: a line per record with a CRC-32, read and rewritten as 3.
 */
export const SCHEMA_VERSION = 3;

/** What a snapshot holds: each collection's records. */
export interface Snapshot {
  schemaVersion: number;
  generation: number;
  collections: Record<string, BaseRecord[]>;
}

/** A snapshot that cannot be read, with the reason. */
export class SnapshotError extends Error {}

/** lowdb's file adapter with compact JSON (its JSONFile indents, which doubles a large snapshot). */
const adapter = (path: string) =>
  new DataFile<Snapshot>(path, {
    parse: (text) => parse(text),
    stringify: (data) => JSON.stringify(data),
  });

/** Writes the snapshot with lowdb (which syncs nothing), then fsyncs it, makes it owner-only, renames it into place and fsyncs the folder. */
export async function writeSnapshot(
  path: string,
  data: Snapshot,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  const next = join(dirname(path), `${basename(path)}.next`);
  await new Low(adapter(next), data).write();
  await chmod(next, 0o600);
  await fsyncPath(next);
  await beforeRename?.();
  await rename(next, path);
  await fsyncPath(dirname(path));
}

/** The snapshot at `path`, null when there is none; a layout-2 snapshot comes back in today's shape. */
export async function readSnapshot(path: string): Promise<Snapshot | null> {
  const db = new Low<Snapshot>(adapter(path), null as unknown as Snapshot);
  await db.read();
  const document = db.data as (Snapshot & { records?: unknown }) | null;
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
  for (const [name, records] of Object.entries(document.collections)) {
    if (!Array.isArray(records)) throw new SnapshotError(`its collection ${name} is not an array`);
  }
  return document;
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
  return document as Snapshot;
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
