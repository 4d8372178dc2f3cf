import type { Column } from '../../ui/output.js';
import type { FileRecord, Repository } from '../../client/index.js';

/** Columns of repository tables. */
export const repositoryColumns: Column<Repository>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name },
  { header: 'ORG', value: (r) => r.orgId },
  { header: 'DESCRIPTION', value: (r) => r.description },
];

/** Columns of file tables (repository files and `files list`). */
export const fileColumns: Column<FileRecord>[] = [
  { header: 'ID', value: (f) => f.id },
  { header: 'NAME', value: (f) => (f.folder ? `${f.folder}/${f.fileName}` : f.fileName) },
  { header: 'SIZE', value: (f) => f.fileSize },
  { header: 'TYPE', value: (f) => f.contentType },
  { header: 'STATUS', value: (f) => f.status ?? 'awaiting upload' },
  { header: 'PUBLIC', value: (f) => (f.isPublic ? 'yes' : 'no') },
];
