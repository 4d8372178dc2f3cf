import { conflict } from '../errors.js';
import type { FileRecord } from '../model.js';
import type { EmulatorContext } from '../context.js';
import { assertMove, type FileStatus } from './rules.js';

/** Stores the records of new uploads (status null: awaiting upload), all in one journal line. */
export async function createUploadRecords(services: EmulatorContext, records: FileRecord[]): Promise<void> {
  await services.store.atomically(() => {
    for (const record of records) void services.db.files.put(record);
  });
}

/**
 * Writes a file's new status, compare-and-set: `observed` is the record the request checked
 * its move against (and maybe waited on storage for). If the file changed since (another status
 * change was acknowledged meanwhile), the write is refused with a 409 and nothing changes: a
 * late UPLOADED never overwrites an acknowledged COMPLETED. The move is checked again against
 * the current record, so COMPLETED stays final.
 */
export async function setFileStatus(services: EmulatorContext, observed: FileRecord, next: FileRecord): Promise<FileRecord> {
  const current = services.db.files.get(observed.id);
  if (!current) throw conflict(`file ${observed.id} was deleted meanwhile`);
  if (current.status !== observed.status || current.updatedAt !== observed.updatedAt) {
    throw conflict(`file ${observed.id} changed meanwhile (status ${observed.status ?? 'null'} became ${current.status ?? 'null'}); read it again and retry`);
  }
  assertMove(current.status as FileStatus | null, next.status as FileStatus);
  await services.db.files.put(next);
  return next;
}
