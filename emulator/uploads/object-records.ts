import type { Db, FileRecord } from '../model.js';
import type { ObjectRecords } from './storage/types.js';

/** File statuses whose object may still be written through the upload URL: awaiting upload, or a retry after FAILED. */
const WRITABLE: ReadonlySet<string | null> = new Set([null, 'FAILED']);

/** The file records as the embedded store's routes see them: a key (objectKey) names its file's id, and that record must hold the key. */
export function fileObjectRecords(db: Db): ObjectRecords {
  const fileOf = (key: string): FileRecord | undefined => {
    const id = key.split('/')[1];
    const file = id ? db.files.get(id) : undefined;
    return file?.storageKey === key ? file : undefined;
  };
  return {
    served(key) {
      const file = fileOf(key);
      return file ? { contentType: file.contentType, fileName: file.fileName } : null;
    },
    putRefusal(key) {
      const file = fileOf(key);
      if (!file)
        return {
          status: 404,
          message:
            'No file record has this upload URL any more (the store was reset or imported): ask for a new one',
        };
      if (WRITABLE.has(file.status)) return null;
      return {
        status: 409,
        message: `file ${file.id} is ${file.status}: its object cannot be replaced; upload a new file with POST /api/generate-upload-url`,
      };
    },
  };
}
