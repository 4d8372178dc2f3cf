import type { FastifyRequest } from 'fastify';
import type { Db, Role } from '../model.js';
import { forbidden, unauthorized } from '../errors.js';
import { roleIn, type InstancePrincipal, type Principal, type UserPrincipal } from './principal.js';

const RANK: Record<Role, number> = { VIEWER: 1, MEMBER: 2, OWNER: 3 };

/** Any authenticated caller, or a 401. */
function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

/** A caller with a user token, or a 401/403 (instance tokens act only through their scopes). */
export function requireUser(request: FastifyRequest): UserPrincipal {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'user')
    throw forbidden('An installation access token cannot do this: use a user token');
  return principal;
}

/** A caller with an instance token, or a 401/403. */
export function requireInstance(request: FastifyRequest): InstancePrincipal {
  const principal = requirePrincipal(request);
  if (principal.kind !== 'instance')
    throw forbidden('Only a plugin installation access token can do this');
  return principal;
}

/** Whether the caller has at least `minimum` in `orgId`. */
export function hasRole(
  db: Db,
  principal: Principal | null,
  orgId: string,
  minimum: Role,
): boolean {
  const role = roleIn(db, principal, orgId);
  return role !== null && RANK[role] >= RANK[minimum];
}

/** Requires a user with at least `minimum` in `orgId`, or a 403 saying who may `action` (callers hide private things with a 404 first). */
export function requireRole(
  db: Db,
  request: FastifyRequest,
  orgId: string,
  minimum: Role,
  action: string,
): UserPrincipal {
  const principal = requireUser(request);
  const role = roleIn(db, principal, orgId);
  if (role === null) {
    if (principal.orgId !== null && principal.orgId !== orgId) {
      throw forbidden(
        `This token is limited to org ${principal.orgId} and cannot ${action} in org ${orgId}`,
      );
    }
    throw forbidden(`You are not a member of org ${orgId}, so you cannot ${action}`);
  }
  if (RANK[role] < RANK[minimum]) {
    throw forbidden(
      `Your role in org ${orgId} is ${role}; ${minimum === 'OWNER' ? 'only an OWNER' : 'a MEMBER or OWNER'} can ${action}`,
    );
  }
  return principal;
}
