import type { Db, Role } from '../model.js';
import { findToken } from './credentials.js';
import { unauthorized } from '../errors.js';

/** A user acting through a user token; `orgId` set when the token is limited to one org. */
export interface UserPrincipal {
  kind: 'user';
  tokenId: string;
  userId: string;
  orgId: string | null;
}

/** A plugin instance acting through its installation access token. */
export interface InstancePrincipal {
  kind: 'instance';
  tokenId: string;
  instanceId: string;
  orgId: string;
}

export type Principal = UserPrincipal | InstancePrincipal;

/**
 * Reads `Authorization: <token>` or `Authorization: Bearer <token>`. No header gives null;
 * a header with an unknown or revoked token is a 401.
 */
export function principalFromHeader(db: Db, header: string | undefined): Principal | null {
  if (header === undefined || header.trim() === '') return null;
  let secret = header.trim();
  const space = secret.indexOf(' ');
  if (space !== -1) {
    if (secret.slice(0, space).toLowerCase() !== 'bearer') {
      throw unauthorized('The Authorization header must be "<token>" or "Bearer <token>"');
    }
    secret = secret.slice(space + 1).trim();
  }
  const record = findToken(db, secret);
  if (!record)
    throw unauthorized(
      'The token in the Authorization header is unknown or revoked: create one with POST /api/tokens, or use the one the emulator printed',
    );
  if (record.kind === 'instance')
    return {
      kind: 'instance',
      tokenId: record.id,
      instanceId: record.instanceId!,
      orgId: record.orgId!,
    };
  return { kind: 'user', tokenId: record.id, userId: record.userId!, orgId: record.orgId };
}

/** The role a user principal has in an org, honouring an org-limited token. */
export function roleIn(db: Db, principal: Principal | null, orgId: string): Role | null {
  if (principal?.kind !== 'user') return null;
  if (principal.orgId !== null && principal.orgId !== orgId) return null;
  return db.memberships.get(membershipId(orgId, principal.userId))?.role ?? null;
}

export function membershipId(orgId: string, userId: string): string {
  return `${orgId}:${userId}`;
}
