import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { found } from '../errors.js';
import { newId, nowIso } from '../store/ids.js';
import { listed, params, querySpec, typed, type RouteOptions } from '../api/common.js';
import {
  AgentCreateSchema,
  AgentRenameSchema,
  AgentSchema,
  ListQuery,
  Ok,
  OkPage,
  errorResponses,
} from '../../src/shared/contract/index.js';
import { createAgent, renameAgent } from '../messaging/agent-service.js';
import { requireBodyOrg } from './common.js';
import type { AdminDeps } from './common.js';

const AGENT_QUERY = querySpec(
  AgentSchema,
  ['id', 'orgId', 'name', 'createdAt', 'updatedAt'],
  ['name'],
);

/** Admin API for agents (`/_emulator/agents`): create, list, read, rename. */
export default async function adminAgentRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
  const one = { 200: Ok(AgentSchema), ...errors };

  app.get(
    '/agents',
    {
      schema: {
        querystring: ListQuery(AGENT_QUERY),
        response: { 200: OkPage(AgentSchema), ...errors },
      },
    },
    async (request) => listed(db.agents, request.query, AGENT_QUERY),
  );

  app.get(
    '/agents/:agentId',
    { schema: { params: params('agentId'), response: one } },
    async (request) => {
      const { agentId } = request.params;
      return ok(found(db.agents.get(agentId), 'agent', agentId));
    },
  );

  app.post(
    '/agents',
    { schema: { body: AgentCreateSchema, response: { 201: Ok(AgentSchema), ...errors } } },
    async (request, reply) => {
      const body = request.body;
      requireBodyOrg(services, body.orgId);
      const now = nowIso();
      const agent = await createAgent(services, {
        id: body.id ?? newId('agent'),
        orgId: body.orgId,
        name: body.name,
        createdAt: now,
        updatedAt: now,
      });
      return reply.status(201).send(ok(agent));
    },
  );

  app.patch(
    '/agents/:agentId',
    { schema: { params: params('agentId'), body: AgentRenameSchema, response: one } },
    async (request) => {
      return ok(await renameAgent(services, request.params.agentId, request.body.name));
    },
  );
}
