import type { FastifyInstance } from 'fastify';
import { ok } from '../http.js';
import { forbidden } from '../errors.js';
import { requireRole, requireUser } from '../auth/guards.js';
import { createUserToken } from '../services/tokens.js';
import { findOrg, type RouteOptions } from './common.js';

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    orgId: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
  },
} as const;

/** User tokens: POST /api/tokens creates one for the calling user. */
export default async function tokenRoutes(app: FastifyInstance, { services }: RouteOptions): Promise<void> {
  app.post('/tokens', { schema: { body: createBody } }, async (request, reply) => {
    const principal = requireUser(request);
    const body = request.body as { name: string; orgId?: string | null };
    const orgId = body.orgId ?? null;
    if (principal.orgId !== null && orgId !== principal.orgId) {
      // A limited token cannot mint a broader one, nor one for another org.
      throw forbidden(`This token is limited to org ${principal.orgId}; it can only create tokens limited to that org (pass "orgId": "${principal.orgId}")`);
    }
    if (orgId !== null) {
      findOrg(services, orgId);
      requireRole(services.db, request, orgId, 'VIEWER', 'create tokens for it');
    }
    const { record, token } = await createUserToken(services, { userId: principal.userId, name: body.name, orgId });
    reply.status(201);
    return ok({ id: record.id, name: record.name, orgId: record.orgId, token, createdAt: record.createdAt });
  });
}
