import { badRequest, conflict, detail, notFound } from '../../errors.js';
import { newId, nowIso } from '../../store/ids.js';
import type {
  FileRecord,
  RepositoryFileAdder,
  RepositoryFileRecord,
  RepositoryRecord,
} from '../../model.js';
import type { StoreDeps } from '../../context.js';
import type { WebhookDispatcher } from '../../webhooks/dispatcher.js';
import type { RepositoryCreate } from '#contract';

/** What the repositories feature needs: the store, and the webhook dispatcher (file events to data providers). */
export interface RepositoryDeps extends StoreDeps {
  dispatcher: WebhookDispatcher;
}

/** Creates a repository of an org (the caller checked the org and the role). */
export async function createRepository(
  services: RepositoryDeps,
  orgId: string,
  body: RepositoryCreate,
): Promise<RepositoryRecord> {
  const now = nowIso();
  const repository: RepositoryRecord = {
    id: newId('repo'),
    orgId,
    name: body.name,
    description: body.description ?? '',
    createdAt: now,
    updatedAt: now,
  };
  await services.db.repositories.put(repository);
  return repository;
}

/** The link of a file to a repository, if the repository holds it. */
export function repositoryFileLink(
  services: RepositoryDeps,
  repositoryId: string,
  fileId: string,
): RepositoryFileRecord | undefined {
  return services.db.repositoryFiles
    .where('repositoryId', repositoryId)
    .find((l) => l.fileId === fileId);
}

/** Adds an uploaded file of the repository's org (checked against the current state), then sends REPOSITORY_FILE_ADDED built by `event`. */
export async function addRepositoryFile(
  services: RepositoryDeps,
  repository: RepositoryRecord,
  fileId: string,
  addedBy: RepositoryFileAdder,
  event: (file: FileRecord) => unknown,
): Promise<{ file: FileRecord; addedAt: string }> {
  const { db } = services;
  const file = db.files.get(fileId);
  if (!file || file.orgId !== repository.orgId) throw notFound('file', fileId);
  if (file.status === null || file.status === 'FAILED') {
    throw badRequest(
      `file ${fileId} is not uploaded (status ${file.status ?? 'null'}): upload it and set its status to UPLOADED first`,
      [
        detail(
          ['fileId'],
          'invalid_state',
          'UPLOADED, PROCESSING or COMPLETED',
          String(file.status),
          'the file must be uploaded',
        ),
      ],
    );
  }
  if (repositoryFileLink(services, repository.id, fileId))
    throw conflict(`repository ${repository.id} already holds file ${fileId}`);
  const now = nowIso();
  await db.repositoryFiles.put({
    id: newId('rfile'),
    repositoryId: repository.id,
    fileId,
    addedBy,
    createdAt: now,
    updatedAt: now,
  });
  await services.dispatcher.emitToEntity(
    'REPOSITORY',
    repository.id,
    'REPOSITORY_FILE_ADDED',
    event(file),
  );
  return { file, addedAt: now };
}

/** Removes a file from a repository (a 404 when it does not hold it), then sends REPOSITORY_FILE_REMOVED. */
export async function removeRepositoryFile(
  services: RepositoryDeps,
  repositoryId: string,
  link: RepositoryFileRecord,
  event: (file: FileRecord | undefined) => unknown,
): Promise<void> {
  const { db } = services;
  if (!db.repositoryFiles.has(link.id)) throw notFound('file', link.fileId);
  await db.repositoryFiles.delete(link.id);
  await services.dispatcher.emitToEntity(
    'REPOSITORY',
    repositoryId,
    'REPOSITORY_FILE_REMOVED',
    event(db.files.get(link.fileId)),
  );
}
