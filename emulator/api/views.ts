import type { FastifyRequest } from 'fastify';
import { FileSchema, PluginInstanceSchema } from '../../src/contract/index.js';
import { querySpec } from './common.js';
import type { FileRecord, RepositoryRecord } from '../model.js';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../errors.js';
import { hasRole, requireUser } from '../auth/guards.js';

// Lookups, query specs and presentations that several route modules share (no route imports another).

/** The query of instance lists. */
export const INSTANCE_QUERY = querySpec(
  PluginInstanceSchema,
  ['id', 'name', 'pluginId', 'orgId', 'entityId', 'entityType', 'agentId', 'eventDispatchMode', 'events', 'scopes', 'createdAt', 'updatedAt'],
  ['name'],
);

/** The query of file lists. */
export const FILE_QUERY = querySpec(
  FileSchema,
  ['id', 'fileName', 'contentType', 'fileSize', 'isPublic', 'status', 'parentId', 'parentType', 'folder', 'orgId', 'createdAt', 'updatedAt'],
  ['fileName', 'folder', 'contentType'],
);

/** The repository, if the caller is a user member of its org (any role); otherwise a 404 (401/403 without a user token). */
export function findVisibleRepository(services: EmulatorContext, request: FastifyRequest, repositoryId: string): RepositoryRecord {
  requireUser(request);
  const repository = services.db.repositories.get(repositoryId);
  if (!repository || !hasRole(services.db, request.principal, repository.orgId, 'VIEWER')) {
    throw notFound('repository', repositoryId);
  }
  return repository;
}

/** A file record as the API shows it (without the storage key). */
export function presentFile(file: FileRecord): Omit<FileRecord, 'storageKey'> {
  const { storageKey: _key, ...rest } = file;
  return rest;
}
