import type { FastifyInstance } from 'fastify';
import { ok } from '../../http.js';
import { forbidden } from '../../errors.js';
import { requireRole, requireUser } from '../../auth/guards.js';
import { createUserToken } from './service.js';
import { findOrg, typed, type RouteOptions } from '../common.js';
import { CreatedTokenSchema, Ok, TokenCreateSchema, errorResponses } from '#contract';
import type { TokenDeps } from './service.js';

/** User tokens: POST /api/tokens creates one for the calling user. */
export default async function tokenRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<TokenDeps>,
): Promise<void> {
  const app = typed(fastify);
  const response = { 201: Ok(CreatedTokenSchema), ...errorResponses(400, 401, 403, 404, 413, 415) };
  app.post(
    '/tokens',
    {
      schema: {
        operationId: 'createToken',
        tags: ['tokens'],
        summary: 'Create a personal access token',
        description:
          'A user token creates another token for its user; with `orgId` (the user must be a member) the new token works only inside that org. The token string is in the answer only this once.',
        body: TokenCreateSchema,
        response,
      },
    },
    async (request, reply) => {
      const principal = requireUser(request);
      const body = request.body;
      const orgId = body.orgId ?? null;
      if (principal.orgId !== null && orgId !== principal.orgId) {
        // A limited token cannot mint a broader one, nor one for another org.
        throw forbidden(
          `This token is limited to org ${principal.orgId}; it can only create tokens limited to that org (pass "orgId": "${principal.orgId}")`,
        );
      }
      if (orgId !== null) {
        findOrg(services, orgId);
        requireRole(services.db, request, orgId, 'VIEWER', 'create tokens for it');
      }
      const { record, token } = await createUserToken(services, {
        userId: principal.userId,
        name: body.name,
        orgId,
      });
      return reply.status(201).send(
        ok({
          id: record.id,
          name: record.name,
          orgId: record.orgId,
          token,
          createdAt: record.createdAt,
        }),
      );
    },
  );
}
