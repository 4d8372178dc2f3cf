import type { Db, Role, TokenRecord } from '../model.js';
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
  if (header === undefined) return null;
  const known = knownPrincipals.get(db.tokens);
  if (known !== undefined && known.version === db.tokens.version) {
    const principal = known.byHeader.get(header);
    if (principal !== undefined) return principal;
  }
  if (header.trim() === '') return null;
  let secret = header.trim();
  const space = secret.indexOf(' ');
  if (space !== -1) {
    if (secret.slice(0, space).toLowerCase() !== 'bearer') {
      throw unauthorized('The Authorization header must be "<token>" or "Bearer <token>"');
    }
    secret = secret.slice(space + 1).trim();
  }
  const record = findToken(db, secret);
  if (!record) throw unauthorized('The token in the Authorization header is unknown or revoked: create one with POST /api/tokens, or use the one the emulator printed');
  return rememberPrincipal(db, header, record);
}

/** Most headers, and most tokens, `knownPrincipals` remembers per store; each map empties when full. */
const KNOWN_PRINCIPALS_MAX = 1024;
/** Longest header remembered: a token is some 50 characters; a longer header is read every time. */
const KNOWN_HEADER_MAX = 256;

/**
 * The principal each Authorization header named, per token collection, for as long as no token
 * changes: a client sends the same header on every request, and reading it (the token's hash, its
 * index, its record) was a large part of a small GET. Any change to any token (a revocation, a new
 * one, an import) empties the maps before the next request reads them, so a revoked token is refused
 * at once. Only headers that named a live token are kept, and headers that name the same token (`t`,
 * `Bearer t`, `bearer  t`) share one principal, and so one set of remembered roles. The maps live in
 * memory only and are bounded.
 */
const knownPrincipals = new WeakMap<Db['tokens'], { version: number; byHeader: Map<string, Principal>; byToken: Map<string, Principal> }>();

function rememberPrincipal(db: Db, header: string, record: TokenRecord): Principal {
  let known = knownPrincipals.get(db.tokens);
  if (known === undefined || known.version !== db.tokens.version) {
    known = { version: db.tokens.version, byHeader: new Map(), byToken: new Map() };
    knownPrincipals.set(db.tokens, known);
  }
  let principal = known.byToken.get(record.id);
  if (principal === undefined) {
    if (known.byToken.size >= KNOWN_PRINCIPALS_MAX) known.byToken.clear();
    // Frozen: one principal serves every request that names this token.
    principal = Object.freeze(toPrincipal(record));
    known.byToken.set(record.id, principal);
  }
  if (header.length <= KNOWN_HEADER_MAX) {
    if (known.byHeader.size >= KNOWN_PRINCIPALS_MAX) known.byHeader.clear();
    known.byHeader.set(header, principal);
  }
  return principal;
}

function toPrincipal(record: TokenRecord): Principal {
  if (record.kind === 'instance') {
    return { kind: 'instance', tokenId: record.id, instanceId: record.instanceId!, orgId: record.orgId! };
  }
  return { kind: 'user', tokenId: record.id, userId: record.userId!, orgId: record.orgId };
}

/** The role a user principal has in an org, honouring an org-limited token. */
export function roleIn(db: Db, principal: Principal | null, orgId: string): Role | null {
  if (!principal || principal.kind !== 'user') return null;
  if (principal.orgId !== null && principal.orgId !== orgId) return null;
  let known = knownRoles.get(principal);
  if (known === undefined || known.memberships !== db.memberships || known.version !== db.memberships.version) {
    known = { memberships: db.memberships, version: db.memberships.version, byOrg: new Map() };
    knownRoles.set(principal, known);
  }
  const role = known.byOrg.get(orgId);
  if (role !== undefined) return role;
  const membership = db.memberships.get(membershipId(orgId, principal.userId));
  if (membership === undefined) return null;
  // Only roles the principal has are kept (at most one per org it belongs to): a caller can name
  // any number of orgs it is not in, and those are looked up every time.
  known.byOrg.set(orgId, membership.role);
  return membership.role;
}

/**
 * The roles a principal has, by org, for as long as no membership changes (any change to any
 * membership starts afresh). A principal lives as long as `knownPrincipals` keeps it, so one
 * client's requests ask the memberships once per org, not twice per request.
 */
const knownRoles = new WeakMap<UserPrincipal, { memberships: Db['memberships']; version: number; byOrg: Map<string, Role> }>();

export function membershipId(orgId: string, userId: string): string {
  return `${orgId}:${userId}`;
}
