import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { notFound } from '../errors.js';
import { newId, nowIso } from '../store/ids.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import { params, typed, type RouteOptions } from '../api/common.js';
import { AgentCreateSchema, AgentRenameSchema, AgentSchema, ListQuery, Ok, OkPage, errorResponses } from '../../src/contract/index.js';
import { createAgent, renameAgent } from '../messaging/agent-service.js';
import { requireBodyOrg } from './common.js';

export const AGENT_QUERY: QuerySpec = {
  fields: { id: 'string', orgId: 'string', name: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name'],
};

/** Admin API for agents (`/_emulator/agents`, behind the admin guard): create, list, read, rename. */
export default async function adminAgentRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
  const one = { 200: Ok(AgentSchema), ...errors };

  app.get('/agents', { schema: { querystring: ListQuery(AGENT_QUERY), response: { 200: OkPage(AgentSchema), ...errors } } }, async (request) => {
    const query = parseQuery(request.query, AGENT_QUERY);
    const result = runQuery(db.agents, query, AGENT_QUERY);
    return ok(result.data, { pagination: result.pagination });
  });

  app.get('/agents/:agentId', { schema: { params: params('agentId'), response: one } }, async (request) => {
    const { agentId } = request.params;
    const agent = db.agents.get(agentId);
    if (!agent) throw notFound('agent', agentId);
    return ok(agent);
  });

  app.post('/agents', { schema: { body: AgentCreateSchema, response: { 201: Ok(AgentSchema), ...errors } } }, async (request, reply) => {
    const body = request.body;
    requireBodyOrg(services, body.orgId);
    const id = body.id ?? newId('agent');
    const now = nowIso();
    const agent = await createAgent(services, { id, orgId: body.orgId, name: body.name, createdAt: now, updatedAt: now });
    reply.status(201);
    return ok(agent);
  });

  app.patch('/agents/:agentId', { schema: { params: params('agentId'), body: AgentRenameSchema, response: one } }, async (request) => {
    const { agentId } = request.params;
    return ok(await renameAgent(services, agentId, request.body.name));
  });
}
