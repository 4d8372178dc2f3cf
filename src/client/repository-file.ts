import { Readable } from 'node:stream';
import type { PlatformClient } from './client.js';

/** A file to put into a repository: its name, type and bytes, owned by the org the repository belongs to. */
export interface RepositoryFileUpload {
  repositoryId: string;
  orgId: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * Uploads bytes as a file of the org (upload URL, PUT, status UPLOADED) and adds it to the repository,
 * which emits REPOSITORY_FILE_ADDED; returns the file's id. `plugsmith trigger` and the scenario runner
 * both add files this way.
 */
export async function uploadRepositoryFile(
  client: PlatformClient,
  upload: RepositoryFileUpload,
): Promise<string> {
  const { repositoryId, orgId, fileName, contentType, bytes } = upload;
  const urls = await client.uploads.generateUploadUrls({
    files: [{ fileName, contentType, fileSize: bytes.length }],
    parentId: orgId,
    parentType: 'ORG',
  });
  const { signedUrl, fileRecord } = urls.files[0];
  await client.uploads.uploadFile(signedUrl, Readable.from([bytes]), {
    size: bytes.length,
    contentType,
  });
  await client.uploads.setStatus({ fileId: fileRecord.id, status: 'UPLOADED' });
  await client.repositories.files.add(repositoryId, fileRecord.id);
  return fileRecord.id;
}
