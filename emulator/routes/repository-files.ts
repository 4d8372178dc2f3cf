import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../http.js';
import { notFound } from '../errors.js';
import { parseQuery, runQuery } from '../store/query.js';
import { requireRole, requireUser } from '../auth/guards.js';
import { isInstanceCaller, requireInstanceScope } from '../auth/scopes.js';
import type { RepositoryRecord } from '../model.js';
import type { Services } from '../services.js';
import { FILE_QUERY, findVisibleRepository, presentFile } from './views.js';
import { addRepositoryFile, removeRepositoryFile, repositoryFileLink } from '../services/repositories.js';
import { idParam, type RouteOptions } from './common.js';

const repoParams = { type: 'object', required: ['repositoryId'], properties: { repositoryId: idParam } } as const;
const fileParams = { type: 'object', required: ['repositoryId', 'fileId'], properties: { repositoryId: idParam, fileId: idParam } } as const;
const addBody = { type: 'object', additionalProperties: false, required: ['fileId'], properties: { fileId: idParam } } as const;

/** The repository for a reader: a member of its org, or its data provider with REPOSITORY_FILES_READ. */
function repositoryForReader(services: Services, request: FastifyRequest, repositoryId: string): RepositoryRecord {
  if (isInstanceCaller(request)) {
    requireInstanceScope(services.db, request, 'REPOSITORY_FILES_READ', { type: 'REPOSITORY', id: repositoryId });
    const repository = services.db.repositories.get(repositoryId);
    if (!repository) throw notFound('repository', repositoryId);
    return repository;
  }
  requireUser(request);
  return findVisibleRepository(services, request, repositoryId);
}

/** The files a repository holds: add (REPOSITORY_FILE_ADDED), remove (REPOSITORY_FILE_REMOVED), list. */
export default async function repositoryFileRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;

  app.post('/repositories/:repositoryId/files', { schema: { params: repoParams, body: addBody } }, async (request, reply) => {
    const { repositoryId } = request.params as { repositoryId: string };
    const { fileId } = request.body as { fileId: string };
    requireUser(request);
    const repository = findVisibleRepository(services, request, repositoryId);
    requireRole(db, request, repository.orgId, 'MEMBER', 'add files to repositories');
    const { file, addedAt } = await addRepositoryFile(services, repository, fileId, (added) => ({ repositoryId, file: presentFile(added) }));
    reply.status(201);
    return ok({ repositoryId, file: presentFile(file), addedAt });
  });

  app.delete('/repositories/:repositoryId/files/:fileId', { schema: { params: fileParams } }, async (request) => {
    const { repositoryId, fileId } = request.params as { repositoryId: string; fileId: string };
    requireUser(request);
    const repository = findVisibleRepository(services, request, repositoryId);
    const link = repositoryFileLink(services, repositoryId, fileId);
    if (!link) throw notFound('file', fileId);
    requireRole(db, request, repository.orgId, 'MEMBER', 'remove files from repositories');
    await removeRepositoryFile(services, repositoryId, link, (file) => ({ repositoryId, file: file ? presentFile(file) : { id: fileId } }));
    return ok({ repositoryId, fileId, removed: true });
  });

  app.get('/repositories/:repositoryId/files', { schema: { params: repoParams } }, async (request) => {
    const { repositoryId } = request.params as { repositoryId: string };
    repositoryForReader(services, request, repositoryId);
    const query = parseQuery(request.query as Record<string, string>, FILE_QUERY);
    const held = new Set(db.repositoryFiles.where('repositoryId', repositoryId).map((l) => l.fileId));
    const result = runQuery(db.files, query, FILE_QUERY, { visible: (f) => held.has(f.id) });
    return ok(result.data.map(presentFile), { pagination: result.pagination });
  });
}
