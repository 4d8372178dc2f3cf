import { readFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as zlib from 'node:zlib';
import type { Adapter } from 'lowdb';

/** A record in a snapshot: its JSON text until someone needs it parsed, or the record itself. */
export type SnapshotRecord = string | { id: string };

/** What a snapshot holds: each collection's records in order, as [id, record] pairs. */
export interface SnapshotData {
  schemaVersion: number;
  generation: number;
  collections: Record<string, Array<[id: string, record: SnapshotRecord]>>;
}

/** The pseudo collection whose lines carried query indexes (written until they were dropped); skipped. */
const INDEX_LINE = '#index';

/** A snapshot that cannot be read, with the reason. */
export class SnapshotError extends Error {}

// zlib.crc32 arrived in Node 20.15; before that the checksum is written as null and not checked.
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/**
 * The snapshot file, as a lowdb adapter. It is one JSON document, laid out one record per line:
 *
 *     {"schemaVersion":2,"generation":3,"bytes":1234,"crc32":5678,"records":[
 *     ["plugins","plg_…",{…the record…}],
 *     …
 *     ]}
 *
 * so a reader can split it into records without parsing them: the emulator keeps each record's
 * text and parses it on first use, which makes opening 100,000 plugins take a fraction of a full
 * JSON.parse (and the garbage collection it causes). The first line carries the size and CRC-32
 * of the rest, so damage anywhere is refused when the store opens, not met later at a request.
 * An older emulator parses the whole document and refuses it for its newer schemaVersion.
 *
 * Writes never leave it half-written, even through a power cut: the text goes to a temporary
 * file which is fsync'ed, renamed over the snapshot, and the folder fsync'ed. (lowdb's own
 * TextFile renames without syncing the data first.)
 */
export class SnapshotFile implements Adapter<SnapshotData | null> {
  constructor(readonly path: string) {}

  /** The snapshot; a version-1 snapshot (one JSON document of whole records) comes back as it is. */
  async read(): Promise<SnapshotData | null> {
    let buffer: Buffer;
    try {
      // Read in one go and decode once: the async read of a 50 MB snapshot (in 512 KB pieces through
      // the thread pool and a string decoder) took three times as long. Nothing else waits meanwhile.
      buffer = readFileSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return decodeSnapshot(buffer);
  }

  async write(data: SnapshotData | null): Promise<void> {
    if (data === null) throw new TypeError('no snapshot to write');
    const temporary = `${this.path}.tmp`;
    // Owner-only: the snapshot holds webhook secrets and the emulator's state.
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(encodeSnapshot(data));
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temporary, this.path);
    await fsyncPath(dirname(this.path));
  }
}

/** The bytes of a snapshot file. */
export function encodeSnapshot(data: SnapshotData): Buffer {
  const chunks: Buffer[] = [];
  let lines = 0;
  let crc = 0;
  const emit = (text: string[]): void => {
    if (text.length === 0) return;
    const chunk = Buffer.from(`${lines > 0 ? ',\n' : ''}${text.join(',\n')}`);
    chunks.push(chunk);
    if (crc32) crc = crc32(chunk, crc);
    lines += text.length;
  };
  for (const [name, records] of Object.entries(data.collections)) {
    const prefix = `[${JSON.stringify(name)},`;
    const text: string[] = [];
    for (const [id, record] of records) text.push(`${prefix}${JSON.stringify(id)},${typeof record === 'string' ? record : JSON.stringify(record)}]`);
    emit(text);
  }
  const end = Buffer.from(`${lines > 0 ? '\n' : ''}]}\n`);
  chunks.push(end);
  const body = Buffer.concat(chunks);
  const head = { schemaVersion: data.schemaVersion, generation: data.generation, bytes: body.length, crc32: crc32 ? crc32(end, crc) : null };
  return Buffer.concat([Buffer.from(`${JSON.stringify(head).slice(0, -1)},"records":[\n`), body]);
}

/** Reads a snapshot file's bytes; throws SnapshotError when they are not a snapshot this code can read. */
export function decodeSnapshot(buffer: Buffer): SnapshotData | null {
  const newline = buffer.indexOf(10);
  if (newline === -1) {
    // Version 1: the whole state as one JSON document on one line.
    return wholeDocument(buffer);
  }
  let head: { schemaVersion?: unknown; generation?: unknown; bytes?: unknown; crc32?: unknown; records?: unknown };
  try {
    head = JSON.parse(`${buffer.toString('utf8', 0, newline)}]}`);
  } catch {
    return wholeDocument(buffer);
  }
  if (typeof head !== 'object' || head === null || typeof head.schemaVersion !== 'number') return wholeDocument(buffer);
  if (typeof head.generation !== 'number' || typeof head.bytes !== 'number') {
    // A newer layout may look different: let the version check speak first.
    return { schemaVersion: head.schemaVersion, generation: 0, collections: {} };
  }
  const body = buffer.subarray(newline + 1);
  if (body.length !== head.bytes) throw new SnapshotError(`it is ${body.length} bytes long after its first line where it should be ${head.bytes} (cut short or edited)`);
  if (crc32 && typeof head.crc32 === 'number' && crc32(body) !== head.crc32) throw new SnapshotError('its checksum does not match its content (damaged or edited)');
  const collections = splitRecords(body.toString('utf8'));
  delete collections[INDEX_LINE];
  return { schemaVersion: head.schemaVersion, generation: head.generation, collections };
}

function wholeDocument(buffer: Buffer): SnapshotData | null {
  let document: unknown;
  try {
    document = JSON.parse(buffer.toString('utf8'));
  } catch (error) {
    throw new SnapshotError(`it is not valid JSON (${(error as Error).message})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document) || typeof (document as SnapshotData).schemaVersion !== 'number') {
    throw new SnapshotError('it is not a plugsmith store snapshot (no schemaVersion)');
  }
  const v1 = document as { schemaVersion: number; generation?: number; collections?: Record<string, Array<{ id: string }>> };
  const collections: SnapshotData['collections'] = Object.create(null) as SnapshotData['collections'];
  for (const [name, records] of Object.entries(v1.collections ?? {})) {
    if (!Array.isArray(records)) throw new SnapshotError(`its collection ${name} is not an array`);
    collections[name] = records.map((record) => [record.id, record]);
  }
  return { schemaVersion: v1.schemaVersion, generation: v1.generation ?? 0, collections };
}

/** The record lines of a snapshot body, split into collection, id and record text without parsing the records. */
function splitRecords(text: string): SnapshotData['collections'] {
  // No prototype: a collection is any name a line gives, `__proto__` and `toString` included.
  const collections: SnapshotData['collections'] = Object.create(null) as SnapshotData['collections'];
  let name = '';
  let records: Array<[string, SnapshotRecord]> = [];
  let start = 0;
  let line = 1;
  for (;;) {
    const end = text.indexOf('\n', start);
    if (end === -1) throw new SnapshotError(`line ${line + 1} does not end`);
    // The last line closes the document.
    if (text.startsWith(']}', start) && end === start + 2) break;
    const stop = text.charCodeAt(end - 1) === 44 /* , */ ? end - 2 : end - 1;
    line++;
    // ["name","id",{…}]: the fast path takes the two strings as they are when neither holds an escape.
    const nameEnd = text.indexOf('"', start + 2);
    const idEnd = text.indexOf('"', nameEnd + 3);
    let entry: [string, string, SnapshotRecord];
    if (
      text.charCodeAt(start) === 91 /* [ */ &&
      text.charCodeAt(start + 1) === 34 /* " */ &&
      text.startsWith('","', nameEnd) &&
      text.startsWith('",', idEnd) &&
      text.charCodeAt(stop) === 93 /* ] */ &&
      !text.slice(start, idEnd).includes('\\')
    ) {
      entry = [text.slice(start + 2, nameEnd), text.slice(nameEnd + 3, idEnd), text.slice(idEnd + 2, stop)];
    } else {
      try {
        const [n, id, record] = JSON.parse(text.slice(start, stop + 1)) as [string, string, { id: string }];
        entry = [n, id, record];
      } catch {
        throw new SnapshotError(`line ${line} is not a record`);
      }
    }
    if (entry[0] !== name) {
      name = entry[0];
      records = collections[name] ??= [];
    }
    records.push([entry[1], entry[2]]);
    start = end + 1;
  }
  return collections;
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
