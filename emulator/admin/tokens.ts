import type { FastifyInstance } from 'fastify';
import type { QuerySpec } from '../store/query.js';
import type { TokenRecord } from '../model.js';
import { listed, typed, type RouteOptions } from '../api/common.js';
import { ListQuery, OkPage, TokenMetadataSchema, errorResponses, type TokenMetadata } from '../../src/contract/index.js';

const TOKEN_QUERY: QuerySpec = {
  fields: { id: 'string', kind: 'string', name: 'string', hint: 'string', userId: 'string', orgId: 'string', instanceId: 'string', revokedAt: 'string', createdAt: 'string', updatedAt: 'string' },
  search: ['name', 'hint'],
};

/** A token as the admin API lists it: never the secret (it is not kept) nor its hash. */
function tokenMetadata({ hash: _hash, ...metadata }: TokenRecord): TokenMetadata {
  return metadata;
}

/** Admin API for tokens (`GET /_emulator/tokens`): user and installation tokens of every org, metadata only. */
export default async function adminTokenRoutes(fastify: FastifyInstance, { services }: RouteOptions): Promise<void> {
  const app = typed(fastify);
  app.get('/tokens', { schema: { querystring: ListQuery(TOKEN_QUERY), response: { 200: OkPage(TokenMetadataSchema), ...errorResponses(400, 401, 403, 404) } } }, async (request) =>
    listed(services.db.tokens, request.query, TOKEN_QUERY, {}, tokenMetadata),
  );
}
