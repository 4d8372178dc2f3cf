import { HttpError, detail } from '../errors.js';

/** What every stored record has: its id. (An alias, not an interface, so the contract's StoredRecord fits it.) */
export type BaseRecord = { id: string };

/** A refusal to open a data dir or to read what is in it, with a message meant for the person running the emulator. */
export class StoreError extends Error {}

/** A write refused because the store is closed: what a write meets while the emulator stops, never a bug. */
export class StoreClosed extends Error {
  constructor() {
    super('the store is closed');
  }
}

/** How deep a record may nest: JSON.stringify recurses, and the journal, snapshot and export wrap it deeper. */
const MAX_RECORD_DEPTH = 1000;

/** A record that cannot be written as JSON (too deep, a cycle, a BigInt): a 400, and nothing of its change applies. */
export class RecordRefused extends HttpError {
  constructor(
    readonly collection: string,
    readonly recordId: string,
    readonly reason: string,
    path: string[] = [],
  ) {
    super('VALIDATION_ERROR', `Cannot store ${collection} record ${recordId}: ${reason}`, [
      detail(
        path,
        'unserializable',
        `JSON nested at most ${MAX_RECORD_DEPTH} levels deep`,
        undefined,
        reason,
      ),
    ]);
  }
}

/** The JSON text of a record, or a RecordRefused: every change is serialized before it is applied. */
export function serializeRecord(
  collection: string,
  record: BaseRecord,
  path: string[] = [],
): string {
  const id = typeof record?.id === 'string' ? record.id : String(record?.id);
  let text: string | undefined;
  try {
    text = JSON.stringify(record);
  } catch (error) {
    const message =
      error instanceof RangeError
        ? `it nests too deeply to be written as JSON (at most ${MAX_RECORD_DEPTH} levels)`
        : `it cannot be written as JSON (${(error as Error).message})`;
    throw new RecordRefused(collection, id, message, path);
  }
  if (typeof text !== 'string' || text[0] !== '{')
    throw new RecordRefused(collection, id, 'a record must be a JSON object', path);
  // Nesting n levels takes at least 2n characters: short records need no scan.
  const depth = text.length <= 2 * MAX_RECORD_DEPTH ? 0 : nestingDepth(text);
  if (depth > MAX_RECORD_DEPTH)
    throw new RecordRefused(
      collection,
      id,
      `it nests ${depth} levels deep; at most ${MAX_RECORD_DEPTH} are kept`,
      path,
    );
  return text;
}

/** The deepest nesting of objects and arrays in a JSON text (a scan, no recursion). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) max = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return max;
}
