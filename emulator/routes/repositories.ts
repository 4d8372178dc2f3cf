import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ok } from '../http.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import { requireRole, requireUser } from '../auth/guards.js';
import { createRepository } from '../services/repositories.js';
import { findVisibleRepository } from './views.js';
import { findOrg, params, refuseOrgIdInBody, type RouteOptions } from './common.js';

const fields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: 'string', maxLength: 10_000 },
} as const;
const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'orgId'],
  properties: { ...fields, orgId: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
const createInOrgBody = { type: 'object', additionalProperties: false, required: ['name'], properties: fields } as const;

export const REPOSITORY_QUERY: QuerySpec = {
  fields: { id: 'string', name: 'string', description: 'string', orgId: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name', 'description'],
};


/** Repositories: create (two paths), get, list by org. */
export default async function repositoryRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;

  async function create(request: FastifyRequest, orgId: string, body: { name: string; description?: string }) {
    requireUser(request);
    findOrg(services, orgId);
    requireRole(db, request, orgId, 'MEMBER', 'create repositories');
    return ok(await createRepository(services, orgId, body));
  }

  app.post('/repositories', { schema: { body: createBody } }, async (request, reply) => {
    const { orgId, ...body } = request.body as { orgId: string; name: string; description?: string };
    reply.status(201);
    return create(request, orgId, body);
  });

  app.post(
    '/orgs/:orgId/repositories',
    { schema: { params: params('orgId'), body: createInOrgBody }, preValidation: async (request) => refuseOrgIdInBody(request) },
    async (request, reply) => {
      const { orgId } = request.params as { orgId: string };
      reply.status(201);
      return create(request, orgId, request.body as { name: string; description?: string });
    },
  );

  app.get('/repositories/:repositoryId', { schema: { params: params('repositoryId') } }, async (request) => {
    requireUser(request);
    const { repositoryId } = request.params as { repositoryId: string };
    return ok(findVisibleRepository(services, request, repositoryId));
  });

  app.get('/orgs/:orgId/repositories', { schema: { params: params('orgId') } }, async (request) => {
    requireUser(request);
    const { orgId } = request.params as { orgId: string };
    findOrg(services, orgId);
    requireRole(db, request, orgId, 'VIEWER', 'list its repositories');
    const query = parseQuery(request.query as Record<string, string>, REPOSITORY_QUERY);
    const result = runQuery(db.repositories, query, REPOSITORY_QUERY, { where: [['orgId', orgId]] });
    return ok(result.data, { pagination: result.pagination });
  });
}
