import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { notFound } from '../../errors.js';
import { newId, nowIso } from '../../store/ids.js';
import { parseQuery, runQuery, type QuerySpec } from '../../store/query.js';
import { params, type RouteOptions } from '../common.js';
import { createAgent, renameAgent } from '../../services/agents.js';
import { chosenId, nameField, orgIdField, requireBodyOrg } from './admin-common.js';

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['orgId', 'name'],
  properties: { id: chosenId, orgId: orgIdField, name: nameField },
} as const;

const patchBody = { type: 'object', additionalProperties: false, required: ['name'], properties: { name: nameField } } as const;

export const AGENT_QUERY: QuerySpec = {
  fields: { id: 'string', orgId: 'string', name: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name'],
};

/** Admin API for agents (`/_emulator/agents`, behind the admin guard): create, list, read, rename. */
export default async function adminAgentRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;

  app.get('/agents', async (request) => {
    const query = parseQuery(request.query as Record<string, string>, AGENT_QUERY);
    const result = runQuery(db.agents, query, AGENT_QUERY);
    return ok(result.data, { pagination: result.pagination });
  });

  app.get('/agents/:agentId', { schema: { params: params('agentId') } }, async (request) => {
    const { agentId } = request.params as { agentId: string };
    const agent = db.agents.get(agentId);
    if (!agent) throw notFound('agent', agentId);
    return ok(agent);
  });

  app.post('/agents', { schema: { body: createBody } }, async (request, reply) => {
    const body = request.body as { id?: string; orgId: string; name: string };
    requireBodyOrg(services, body.orgId);
    const id = body.id ?? newId('agent');
    const now = nowIso();
    const agent = await createAgent(services, { id, orgId: body.orgId, name: body.name, createdAt: now, updatedAt: now });
    reply.status(201);
    return ok(agent);
  });

  app.patch('/agents/:agentId', { schema: { params: params('agentId'), body: patchBody } }, async (request) => {
    const { agentId } = request.params as { agentId: string };
    return ok(await renameAgent(services, agentId, (request.body as { name: string }).name));
  });
}
