import type { FastifyRequest } from 'fastify';
import type { StoreDeps } from '../../context.js';
import type { RepositoryRecord } from '../../model.js';
import { notFound } from '../../errors.js';
import { hasRole, requireUser } from '../../auth/guards.js';

/** The repository, if the caller is a user member of its org (any role); otherwise a 404 (401/403 without a user token). */
export function findVisibleRepository(
  services: StoreDeps,
  request: FastifyRequest,
  repositoryId: string,
): RepositoryRecord {
  requireUser(request);
  const repository = services.db.repositories.get(repositoryId);
  if (!repository || !hasRole(services.db, request.principal, repository.orgId, 'VIEWER')) {
    throw notFound('repository', repositoryId);
  }
  return repository;
}
