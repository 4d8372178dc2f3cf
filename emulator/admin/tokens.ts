import type { FastifyInstance } from 'fastify';
import type { TokenRecord } from '../model.js';
import { listed, querySpec, typed, type RouteOptions } from '../api/common.js';
import { ListQuery, OkPage, TokenMetadataSchema, errorResponses, type TokenMetadata } from '../../src/contract/index.js';

const TOKEN_QUERY = querySpec(
  TokenMetadataSchema,
  ['id', 'kind', 'name', 'hint', 'userId', 'orgId', 'instanceId', 'revokedAt', 'createdAt', 'updatedAt'],
  ['name', 'hint'],
);

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
