import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../../http.js';
import { requireRole, requireUser } from '../../auth/guards.js';
import { createRepository } from './service.js';
import {
  findOrg,
  listed,
  params,
  querySpec,
  refuseOrgIdInBody,
  typed,
  type RouteOptions,
} from '../common.js';
import { findVisibleRepository } from './access.js';
import {
  ListQuery,
  Ok,
  OkPage,
  RepositoryCreateSchema,
  RepositoryCreateWithOrgSchema,
  RepositorySchema,
  errorResponses,
  type RepositoryCreate,
} from '#contract';
import type { RepositoryDeps } from './service.js';
import { linksTo, MADE_ID } from '../../openapi/links.js';

const one = (status: 200 | 201) => ({
  [status]: Ok(RepositorySchema),
  ...errorResponses(400, 401, 403, 404, 413, 415),
});
const page = { 200: OkPage(RepositorySchema), ...errorResponses(400, 401, 403, 404) };

const REPOSITORY_QUERY = querySpec(
  RepositorySchema,
  ['id', 'name', 'description', 'orgId', 'createdAt', 'updatedAt'],
  ['name', 'description'],
);

/** What a client can do next with the repository a create made (OpenAPI links). */
const REPOSITORY_LINKS = linksTo(
  'repository',
  { repositoryId: MADE_ID },
  {
    getRepository: 'Get {made}',
    listRepositoryFiles: 'List the files of {made}',
    addRepositoryFile: 'Add an uploaded file to {made}',
    installDataProvider: 'Install a plugin as a data provider on {made}',
    listDataProviders: 'List the data providers of {made}',
  },
);

/** Repositories: create (two paths), get, list by org. */
export default async function repositoryRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<RepositoryDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;

  async function create(
    request: FastifyRequest,
    reply: FastifyReply,
    orgId: string,
    body: RepositoryCreate,
  ) {
    requireUser(request);
    findOrg(services, orgId);
    requireRole(db, request, orgId, 'MEMBER', 'create repositories');
    const repository = await createRepository(services, orgId, body);
    return reply.status(201).send(ok(repository));
  }

  app.post(
    '/repositories',
    {
      links: { 201: REPOSITORY_LINKS },
      schema: {
        operationId: 'createRepository',
        tags: ['repositories'],
        summary: 'Create a repository (the org in the body)',
        description:
          'A MEMBER or OWNER of the org named by `orgId` in the body creates a repository there. Sends no event.',
        body: RepositoryCreateWithOrgSchema,
        response: one(201),
      },
    },
    async (request, reply) => {
      const { orgId, ...body } = request.body;
      return create(request, reply, orgId, body);
    },
  );

  app.post(
    '/orgs/:orgId/repositories',
    {
      links: { 201: REPOSITORY_LINKS },
      schema: {
        operationId: 'createOrgRepository',
        tags: ['repositories'],
        summary: 'Create a repository in an org',
        description:
          'A MEMBER or OWNER of the org in the path creates a repository there (`orgId` must not be in the body). Sends no event.',
        params: params('orgId'),
        body: RepositoryCreateSchema,
        response: one(201),
      },
      preValidation: async (request) => refuseOrgIdInBody(request),
    },
    async (request, reply) => create(request, reply, request.params.orgId, request.body),
  );

  app.get(
    '/repositories/:repositoryId',
    {
      schema: {
        operationId: 'getRepository',
        tags: ['repositories'],
        summary: 'Get a repository',
        description:
          "A member of the repository's org (any role) reads it; anyone else gets a 404.",
        params: params('repositoryId'),
        response: one(200),
      },
    },
    async (request) => ok(findVisibleRepository(services, request, request.params.repositoryId)),
  );

  app.get(
    '/orgs/:orgId/repositories',
    {
      schema: {
        operationId: 'listOrgRepositories',
        tags: ['repositories'],
        summary: "List an org's repositories",
        description:
          'A member of the org (any role) lists its repositories, with the query system; anyone else gets an error.',
        params: params('orgId'),
        querystring: ListQuery(REPOSITORY_QUERY),
        response: page,
      },
    },
    async (request) => {
      requireUser(request);
      const { orgId } = request.params;
      findOrg(services, orgId);
      requireRole(db, request, orgId, 'VIEWER', 'list its repositories');
      return listed(db.repositories, request.query, REPOSITORY_QUERY, {
        where: [['orgId', orgId]],
      });
    },
  );
}
