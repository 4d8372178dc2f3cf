import type { FastifyRequest } from 'fastify';

// Whether a route takes a credential is declared on the route, in its schema, as OpenAPI says it:
// `security: []` (no credential required). The OpenAPI document publishes what the schema says, and
// the guards of /api and /_emulator read the same declaration from the route that matched.

/** The `security` of a route that anyone may call without a credential (it holds no private data). */
export const NO_CREDENTIAL: [] = [];

/** Whether the route that matched `request` declares that it takes no credential (`security: []`). */
export function takesNoCredential(request: FastifyRequest): boolean {
  const security = request.routeOptions.schema?.security;
  return Array.isArray(security) && security.length === 0;
}
