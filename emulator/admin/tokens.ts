import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { parseQuery, runQuery, type QuerySpec } from '../store/query.js';
import type { TokenRecord } from '../model.js';
import { typed, type RouteOptions } from '../api/common.js';
import { ListQuery, OkPage, TokenMetadataSchema, errorResponses, type TokenMetadata } from '../../src/contract/index.js';

export const TOKEN_QUERY: QuerySpec = {
  fields: { id: 'string', kind: 'string', name: 'string', hint: 'string', userId: 'string', orgId: 'string', instanceId: 'string', revokedAt: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name', 'hint'],
};

/** A token as the admin API lists it: never the secret (it is not kept) nor its hash. */
function tokenMetadata(t: TokenRecord): TokenMetadata {
  return { id: t.id, kind: t.kind, name: t.name, hint: t.hint, userId: t.userId, orgId: t.orgId, instanceId: t.instanceId, revokedAt: t.revokedAt, createdAt: t.createdAt, updatedAt: t.updatedAt };
}

/** Admin API for tokens (`GET /_emulator/tokens`, behind the admin guard): user and installation tokens of every org, metadata only. */
export default async function adminTokenRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  app.get('/tokens', { schema: { querystring: ListQuery(TOKEN_QUERY), response: { 200: OkPage(TokenMetadataSchema), ...errorResponses(400, 401, 403, 404) } } }, async (request) => {
    const query = parseQuery(request.query, TOKEN_QUERY);
    const result = runQuery(services.db.tokens, query, TOKEN_QUERY);
    return ok(result.data.map(tokenMetadata), { pagination: result.pagination });
  });
}
