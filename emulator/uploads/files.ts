import { FileSchema } from '#contract';
import type { FileRecord } from '../model.js';
import { querySpec } from '../api/common.js';

/** The query of file lists. */
export const FILE_QUERY = querySpec(
  FileSchema,
  [
    'id',
    'fileName',
    'contentType',
    'fileSize',
    'isPublic',
    'status',
    'parentId',
    'parentType',
    'folder',
    'orgId',
    'createdAt',
    'updatedAt',
  ],
  ['fileName', 'folder', 'contentType'],
);

/** A file record as the API shows it (without the storage key). */
export function presentFile(file: FileRecord): Omit<FileRecord, 'storageKey'> {
  const { storageKey: _key, ...rest } = file;
  return rest;
}
