import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { parseQuery, runQuery, type QuerySpec } from '../../store/query.js';
import type { ApiKeyRecord } from '../../model.js';
import { createApiKey, deleteApiKey } from '../../services/tokens.js';
import { params, type RouteOptions } from '../common.js';
import { nameField, orgIdField, requireBodyOrg } from './admin-common.js';

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['orgId'],
  properties: { orgId: orgIdField, name: nameField },
} as const;

export const API_KEY_QUERY: QuerySpec = {
  fields: { id: 'string', orgId: 'string', name: 'string', hint: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name'],
};

/** An API key as listings show it: never the key, never its hash; `hint` is its last characters. */
export function publicApiKey(k: ApiKeyRecord) {
  return { id: k.id, orgId: k.orgId, name: k.name, hint: k.hint, createdAt: k.createdAt, updatedAt: k.updatedAt };
}

/** Admin API for messaging API keys (`/_emulator/api-keys`, behind the admin guard): issue (the key is shown once), list, revoke. */
export default async function adminApiKeyRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const { db } = services;

  app.get('/api-keys', async (request) => {
    const query = parseQuery(request.query as Record<string, string>, API_KEY_QUERY);
    const result = runQuery(db.apiKeys, query, API_KEY_QUERY);
    return ok(result.data.map(publicApiKey), { pagination: result.pagination });
  });

  app.post('/api-keys', { schema: { body: createBody } }, async (request, reply) => {
    const body = request.body as { orgId: string; name?: string };
    requireBodyOrg(services, body.orgId);
    const { record, key } = await createApiKey(services, { orgId: body.orgId, name: body.name });
    reply.status(201);
    return ok({ ...publicApiKey(record), key });
  });

  app.delete('/api-keys/:apiKeyId', { schema: { params: params('apiKeyId') } }, async (request) => {
    const { apiKeyId } = request.params as { apiKeyId: string };
    // The record is the key: deleting it makes the key unknown at once.
    return ok(publicApiKey(await deleteApiKey(services, apiKeyId)));
  });
}
