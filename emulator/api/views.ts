import type { FastifyRequest } from 'fastify';
import type { QuerySpec } from '../store/query.js';
import type { FileRecord, RepositoryRecord } from '../model.js';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../errors.js';
import { hasRole, requireUser } from '../auth/guards.js';

// Lookups, query specs and presentations that several route modules share (no route imports another).

/** Filterable and sortable instance fields, and what `@search` looks at. */
export const INSTANCE_QUERY: QuerySpec = {
  fields: {
    id: 'string',
    name: 'string',
    pluginId: 'string',
    orgId: 'string',
    entityId: 'string',
    entityType: 'string',
    agentId: 'string',
    eventDispatchMode: 'string',
    events: 'array',
    scopes: 'array',
    createdAt: 'string',
    updatedAt: 'string',
  },
  search: ['name'],
};

/** Filterable and sortable file fields, and what `@search` looks at. */
export const FILE_QUERY: QuerySpec = {
  fields: {
    id: 'string',
    fileName: 'string',
    contentType: 'string',
    fileSize: 'number',
    isPublic: 'boolean',
    status: 'string',
    parentId: 'string',
    parentType: 'string',
    folder: 'string',
    orgId: 'string',
    createdAt: 'string',
    updatedAt: 'string',
  },
  search: ['fileName', 'folder', 'contentType'],
};

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
