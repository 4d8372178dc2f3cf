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
} from '../../../src/shared/contract/index.js';
import type { RepositoryDeps } from './service.js';

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
    { schema: { body: RepositoryCreateWithOrgSchema, response: one(201) } },
    async (request, reply) => {
      const { orgId, ...body } = request.body;
      return create(request, reply, orgId, body);
    },
  );

  app.post(
    '/orgs/:orgId/repositories',
    {
      schema: { params: params('orgId'), body: RepositoryCreateSchema, response: one(201) },
      preValidation: async (request) => refuseOrgIdInBody(request),
    },
    async (request, reply) => create(request, reply, request.params.orgId, request.body),
  );

  app.get(
    '/repositories/:repositoryId',
    { schema: { params: params('repositoryId'), response: one(200) } },
    async (request) => ok(findVisibleRepository(services, request, request.params.repositoryId)),
  );

  app.get(
    '/orgs/:orgId/repositories',
    {
      schema: { params: params('orgId'), querystring: ListQuery(REPOSITORY_QUERY), response: page },
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
