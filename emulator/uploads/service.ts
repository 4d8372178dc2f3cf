import { conflict } from '../errors.js';
import type { FileRecord } from '../model.js';
import type { StoreDeps } from '../context.js';
import type { ObjectStorage } from './storage/types.js';
import { assertMove } from './rules.js';

/** What the uploads feature needs: the store, and the object storage. */
export interface UploadDeps extends StoreDeps {
  storage: ObjectStorage;
}

/** Stores the records of new uploads (status null: awaiting upload), all in one journal line. */
export async function createUploadRecords(
  services: UploadDeps,
  records: FileRecord[],
): Promise<void> {
  await services.store.atomically(() => {
    for (const record of records) void services.db.files.put(record);
  });
}

/** Writes a file's new status only if `observed` is still current (else a 409): a late UPLOADED never overwrites a COMPLETED. */
export async function setFileStatus(
  services: UploadDeps,
  observed: FileRecord,
  next: FileRecord,
): Promise<FileRecord> {
  const current = services.db.files.get(observed.id);
  if (!current) throw conflict(`file ${observed.id} was deleted meanwhile`);
  if (current.status !== observed.status || current.updatedAt !== observed.updatedAt) {
    throw conflict(
      `file ${observed.id} changed meanwhile (status ${observed.status ?? 'null'} became ${current.status ?? 'null'}); read it again and retry`,
    );
  }
  assertMove(current.status, next.status!);
  await services.db.files.put(next);
  return next;
}
