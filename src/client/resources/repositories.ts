import type { Api } from '../api.js';
import { segment as s, serializeListQuery, type ListQuery } from '../query.js';
import type { CallOptions } from '../transport.js';
import type { FileRecord, Repository, RepositoryCreate, RepositoryFileRecord } from '../types.js';

/** Repositories and the files they hold. */
export function repositoriesResource(api: Api) {
  const files = (repositoryId: string) => `/api/repositories/${s(repositoryId)}/files`;
  return {
    /** POST /api/repositories (`orgId` in the body). */
    create: (body: RepositoryCreate, options?: CallOptions) =>
      api.data<Repository>('POST', '/api/repositories', { body, options }),
    /** POST /api/orgs/:orgId/repositories */
    createInOrg: (orgId: string, body: Omit<RepositoryCreate, 'orgId'>, options?: CallOptions) =>
      api.data<Repository>('POST', `/api/orgs/${s(orgId)}/repositories`, { body, options }),
    /** GET /api/repositories/:repositoryId */
    get: (repositoryId: string, options?: CallOptions) =>
      api.data<Repository>('GET', `/api/repositories/${s(repositoryId)}`, { options }),
    /** GET /api/orgs/:orgId/repositories (a non-member gets FORBIDDEN). */
    listByOrg: (orgId: string, query?: ListQuery, options?: CallOptions) =>
      api.page<Repository>('GET', `/api/orgs/${s(orgId)}/repositories`, {
        query: serializeListQuery(query),
        options,
      }),
    files: {
      /** POST /api/repositories/:repositoryId/files `{ fileId }`: emits REPOSITORY_FILE_ADDED. */
      add: (repositoryId: string, fileId: string, options?: CallOptions) =>
        api.data<FileRecord>('POST', files(repositoryId), { body: { fileId }, options }),
      /** GET /api/repositories/:repositoryId/files */
      list: (repositoryId: string, query?: ListQuery, options?: CallOptions) =>
        api.page<RepositoryFileRecord>('GET', files(repositoryId), {
          query: serializeListQuery(query),
          options,
        }),
      /** DELETE /api/repositories/:repositoryId/files/:fileId: emits REPOSITORY_FILE_REMOVED. */
      remove: (repositoryId: string, fileId: string, options?: CallOptions) =>
        api.data<unknown>('DELETE', `${files(repositoryId)}/${s(fileId)}`, { options }),
    },
  };
}

export type RepositoriesResource = ReturnType<typeof repositoriesResource>;
