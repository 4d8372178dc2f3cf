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
} from '#contract';
import { createAgent, renameAgent } from '../messaging/agent-service.js';
import { requireBodyOrg } from './common.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';
import { linksTo, MADE_ID } from '../openapi/links.js';

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
        operationId: 'listAgents',
        tags: ['admin-messaging'],
        summary: 'List agents',
        description: `${ADMIN_ONLY} lists the agents of every org, with the query system.`,
        querystring: ListQuery(AGENT_QUERY),
        response: { 200: OkPage(AgentSchema), ...errors },
      },
    },
    async (request) => listed(db.agents, request.query, AGENT_QUERY),
  );

  app.get(
    '/agents/:agentId',
    {
      schema: {
        operationId: 'getAgent',
        tags: ['admin-messaging'],
        summary: 'Get an agent',
        description: `${ADMIN_ONLY} reads an agent.`,
        params: params('agentId'),
        response: one,
      },
    },
    async (request) => {
      const { agentId } = request.params;
      return ok(found(db.agents.get(agentId), 'agent', agentId));
    },
  );

  app.post(
    '/agents',
    {
      links: {
        201: linksTo(
          'agent',
          { agentId: MADE_ID },
          { getAgent: 'Get {made}', renameAgent: 'Rename {made}' },
        ),
      },
      schema: {
        operationId: 'createAgent',
        tags: ['admin-messaging'],
        summary: 'Create an agent',
        description: `${ADMIN_ONLY} creates an agent in an org; plugins are installed on it with the management API.`,
        body: AgentCreateSchema,
        response: { 201: Ok(AgentSchema), ...errors },
      },
    },
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
    {
      schema: {
        operationId: 'renameAgent',
        tags: ['admin-messaging'],
        summary: 'Rename an agent',
        description: `${ADMIN_ONLY} renames an agent.`,
        params: params('agentId'),
        body: AgentRenameSchema,
        response: one,
      },
    },
    async (request) => {
      return ok(await renameAgent(services, request.params.agentId, request.body.name));
    },
  );
}
