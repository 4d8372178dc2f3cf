import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../../http.js';
import { found } from '../../errors.js';
import { requireRole } from '../../auth/guards.js';
import { requireInstanceScope } from '../../auth/scopes.js';
import type { RepositoryFileAdder, RepositoryRecord } from '../../model.js';
import { addRepositoryFile, removeRepositoryFile, repositoryFileLink } from './service.js';
import { listed, params, typed, type RouteOptions } from '../common.js';
import { FILE_QUERY, presentFile } from '../../uploads/files.js';
import { findVisibleRepository } from './access.js';
import {
  type File,
  ListQuery,
  Ok,
  OkPage,
  RepositoryFileAddSchema,
  RepositoryFileAddedSchema,
  RepositoryFileRemovedSchema,
  RepositoryFileSchema,
  errorResponses,
} from '#contract';
import type { RepositoryDeps } from './service.js';
import { linksTo } from '../../openapi/links.js';

const repoParams = params('repositoryId');
const fileParams = params('repositoryId', 'fileId');
const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);

/** The repository for a reader: a member of its org, or its data provider with REPOSITORY_FILES_READ. */
function repositoryForReader(
  services: RepositoryDeps,
  request: FastifyRequest,
  repositoryId: string,
): RepositoryRecord {
  if (request.principal?.kind === 'instance') {
    requireInstanceScope(services.db, request, 'REPOSITORY_FILES_READ', {
      type: 'REPOSITORY',
      id: repositoryId,
    });
    return found(services.db.repositories.get(repositoryId), 'repository', repositoryId);
  }
  return findVisibleRepository(services, request, repositoryId);
}

/** The files a repository holds: add (REPOSITORY_FILE_ADDED), remove (REPOSITORY_FILE_REMOVED), list. */
export default async function repositoryFileRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<RepositoryDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;

  app.post(
    '/repositories/:repositoryId/files',
    {
      links: {
        201: linksTo(
          'repository file',
          { repositoryId: '$request.path.repositoryId', fileId: '$response.body#/data/file/id' },
          { removeRepositoryFile: 'Remove {made}' },
        ),
      },
      schema: {
        operationId: 'addRepositoryFile',
        tags: ['repository-files'],
        summary: 'Add a file to a repository',
        description:
          "A MEMBER or OWNER of the repository's org adds an uploaded file of that org to it; its data providers are sent REPOSITORY_FILE_ADDED.",
        params: repoParams,
        body: RepositoryFileAddSchema,
        response: { 201: Ok(RepositoryFileAddedSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { repositoryId } = request.params;
      const { fileId } = request.body;
      const repository = findVisibleRepository(services, request, repositoryId);
      // Only a user's token gets here: an installation access token has no scope that adds files.
      const adder = requireRole(
        db,
        request,
        repository.orgId,
        'MEMBER',
        'add files to repositories',
      );
      const addedBy: RepositoryFileAdder = { kind: 'user', userId: adder.userId };
      const { file, addedAt } = await addRepositoryFile(
        services,
        repository,
        fileId,
        addedBy,
        (added) => ({ repositoryId, file: presentFile(added) }),
      );
      return reply.status(201).send(ok({ repositoryId, file: presentFile(file), addedAt }));
    },
  );

  app.delete(
    '/repositories/:repositoryId/files/:fileId',
    {
      schema: {
        operationId: 'removeRepositoryFile',
        tags: ['repository-files'],
        summary: 'Remove a file from a repository',
        description:
          "A MEMBER or OWNER of the repository's org removes a file from it (the file record stays); its data providers are sent REPOSITORY_FILE_REMOVED.",
        params: fileParams,
        response: { 200: Ok(RepositoryFileRemovedSchema), ...errors },
      },
    },
    async (request) => {
      const { repositoryId, fileId } = request.params;
      const repository = findVisibleRepository(services, request, repositoryId);
      const link = found(repositoryFileLink(services, repositoryId, fileId), 'file', fileId);
      requireRole(db, request, repository.orgId, 'MEMBER', 'remove files from repositories');
      await removeRepositoryFile(services, repositoryId, link, (file) => ({
        repositoryId,
        file: file ? presentFile(file) : { id: fileId },
      }));
      return ok({ repositoryId, fileId, removed: true });
    },
  );

  app.get(
    '/repositories/:repositoryId/files',
    {
      schema: {
        operationId: 'listRepositoryFiles',
        tags: ['repository-files'],
        summary: "List a repository's files",
        description:
          "A member of the repository's org, or its data provider with REPOSITORY_FILES_READ, lists the files it holds, with the query system.",
        params: repoParams,
        querystring: ListQuery(FILE_QUERY),
        response: { 200: OkPage(RepositoryFileSchema), ...errors },
      },
    },
    async (request) => {
      const { repositoryId } = request.params;
      repositoryForReader(services, request, repositoryId);
      const links = new Map(
        db.repositoryFiles.where('repositoryId', repositoryId).map((l) => [l.fileId, l]),
      );
      const page = listed(
        db.files,
        request.query,
        FILE_QUERY,
        { visible: (f) => links.has(f.id) },
        presentFile,
      );
      // When and by whom each file was added: the emulator's extensions to the spec's file.
      const withLink = (file: File) => {
        const link = links.get(file.id);
        return { ...file, addedAt: link?.createdAt ?? null, addedBy: link?.addedBy ?? null };
      };
      return { ...page, data: page.data.map(withLink) };
    },
  );
}
