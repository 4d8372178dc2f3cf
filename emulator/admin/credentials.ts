import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import type { ApiKeyRecord, TokenRecord } from '../model.js';
import { createApiKey, deleteApiKey } from '../api/tokens/service.js';
import { listed, params, querySpec, typed, type RouteOptions } from '../api/common.js';
import {
  ApiKeyCreateSchema,
  ApiKeySchema,
  ListQuery,
  Ok,
  OkPage,
  TokenMetadataSchema,
  errorResponses,
  type TokenMetadata,
} from '#contract';
import { requireBodyOrg } from './common.js';
import { ADMIN_ONLY, type AdminDeps } from './common.js';
import { linksTo, MADE_ID } from '../openapi/links.js';

const TOKEN_QUERY = querySpec(
  TokenMetadataSchema,
  [
    'id',
    'kind',
    'name',
    'hint',
    'userId',
    'orgId',
    'instanceId',
    'revokedAt',
    'createdAt',
    'updatedAt',
  ],
  ['name', 'hint'],
);
const API_KEY_QUERY = querySpec(
  ApiKeySchema,
  ['id', 'orgId', 'name', 'hint', 'createdAt', 'updatedAt'],
  ['name'],
);

/** A token as the admin API lists it: never the secret (it is not kept) nor its hash. */
function tokenMetadata({ hash: _hash, ...metadata }: TokenRecord): TokenMetadata {
  return metadata;
}

/** An API key as listings show it: never the key, never its hash; `hint` is its last characters. */
function publicApiKey(k: ApiKeyRecord) {
  return {
    id: k.id,
    orgId: k.orgId,
    name: k.name,
    hint: k.hint,
    createdAt: k.createdAt,
    updatedAt: k.updatedAt,
  };
}

/** Admin API for every org's credentials: tokens (metadata only) and messaging API keys (issue, the key shown once; list; revoke). */
export default async function adminCredentialRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<AdminDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;
  const errors = errorResponses(400, 401, 403, 404, 413, 415);

  app.get(
    '/tokens',
    {
      schema: {
        operationId: 'listTokens',
        tags: ['admin'],
        summary: 'List tokens (metadata, never secrets)',
        description: `${ADMIN_ONLY} lists the user and installation tokens of every org as metadata (a hint, never the token).`,
        querystring: ListQuery(TOKEN_QUERY),
        response: { 200: OkPage(TokenMetadataSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listed(db.tokens, request.query, TOKEN_QUERY, {}, tokenMetadata),
  );

  app.get(
    '/api-keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags: ['admin-messaging'],
        summary: 'List messaging API keys',
        description: `${ADMIN_ONLY} lists the messaging API keys as metadata (a hint, never the key), with the query system.`,
        querystring: ListQuery(API_KEY_QUERY),
        response: { 200: OkPage(ApiKeySchema), ...errors },
      },
    },
    async (request) => listed(db.apiKeys, request.query, API_KEY_QUERY, {}, publicApiKey),
  );

  app.post(
    '/api-keys',
    {
      links: { 201: linksTo('API key', { apiKeyId: MADE_ID }, { deleteApiKey: 'Delete {made}' }) },
      schema: {
        operationId: 'createApiKey',
        tags: ['admin-messaging'],
        summary: 'Create a messaging API key',
        description: `${ADMIN_ONLY} creates a messaging API key for an org; the key is in this answer only.`,
        body: ApiKeyCreateSchema,
        response: { 201: Ok(ApiKeySchema), ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      requireBodyOrg(services, body.orgId);
      const { record, key } = await createApiKey(services, { orgId: body.orgId, name: body.name });
      return reply.status(201).send(ok({ ...publicApiKey(record), key }));
    },
  );

  app.delete(
    '/api-keys/:apiKeyId',
    {
      schema: {
        operationId: 'deleteApiKey',
        tags: ['admin-messaging'],
        summary: 'Delete a messaging API key',
        description: `${ADMIN_ONLY} revokes a messaging API key: its requests are refused and the conversation streams opened with it end at once.`,
        params: params('apiKeyId'),
        response: { 200: Ok(ApiKeySchema), ...errors },
      },
    },
    async (request) => {
      return ok(publicApiKey(await deleteApiKey(services, request.params.apiKeyId)));
    },
  );
}
