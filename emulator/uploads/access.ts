import type { FastifyRequest } from 'fastify';
import type { StoreDeps } from '../context.js';
import type { FileRecord } from '../model.js';
import { forbidden, found, notFound } from '../errors.js';
import { hasRole, requireUser } from '../auth/guards.js';
import { requireInstanceScope } from '../auth/scopes.js';

/** The file as the caller may see it; a 404 when they may not. */
export function findVisibleFile(
  services: StoreDeps,
  request: FastifyRequest,
  fileId: string,
): FileRecord {
  const file = found(services.db.files.get(fileId), 'file', fileId);
  const principal = request.principal;
  if (principal?.kind === 'instance') {
    // A data provider reads only its repository's files: a 403 for any other, as for anything its scopes do not allow.
    const instance = services.db.instances.get(principal.instanceId);
    if (instance && instance.entityType !== 'REPOSITORY') {
      throw forbidden(
        `This installation access token acts on ${instance.entityType.toLowerCase()} ${instance.entityId}; only a repository's data provider reads files`,
      );
    }
    const repositoryId = instance?.entityId ?? '';
    requireInstanceScope(services.db, request, 'REPOSITORY_FILES_READ', {
      type: 'REPOSITORY',
      id: repositoryId,
    });
    if (
      !services.db.repositoryFiles
        .where('repositoryId', repositoryId)
        .some((link) => link.fileId === fileId)
    ) {
      throw forbidden(
        `This installation access token reads only the files of repository ${repositoryId}; file ${fileId} is not one of them`,
      );
    }
    return file;
  }
  requireUser(request);
  if (!hasRole(services.db, principal, file.orgId, 'VIEWER')) throw notFound('file', fileId);
  return file;
}
