import type { FastifyRequest } from 'fastify';
import type { Db } from '../model.js';
import { badRequest, detail, notFound } from '../errors.js';
import { requireUser } from '../auth/guards.js';

/** What decides the org of a new record (an upload, an app's instance). */
export interface OrgChoice {
  /** The org of what the record goes under (a file's parent, an app with instances), or null when that has none. */
  fixed: string | null;
  /** That thing, for messages: `character char_1`, `app app_1`. */
  of: string;
  /** The `orgId` of the body, if any. */
  given: string | undefined;
  /** The message when no org can be chosen: what to pass. */
  ask: string;
}

/**
 * The one "which org owns this" rule: the org of what the record goes under; else the body's `orgId` (a 404 for an
 * unknown org); else the token's org; else the caller's only org. A body `orgId` other than the fixed org is a 400,
 * and so is a caller of several orgs who names none.
 */
export function owningOrg(db: Db, request: FastifyRequest, choice: OrgChoice): string {
  const { fixed, of, given } = choice;
  if (fixed !== null) {
    if (given !== undefined && given !== fixed) {
      throw badRequest(`${of} belongs to org ${fixed}; omit orgId or pass "${fixed}"`, [
        detail(['orgId'], 'invalid_value', fixed, given, `orgId must be the org of ${of}`),
      ]);
    }
    return fixed;
  }
  if (given !== undefined) {
    if (!db.orgs.has(given)) throw notFound('organization', given);
    return given;
  }
  const principal = requireUser(request);
  if (principal.orgId !== null) return principal.orgId;
  const orgs = db.memberships.where('userId', principal.userId).map((m) => m.orgId);
  if (orgs.length === 1) return orgs[0];
  throw badRequest(choice.ask, [
    detail(
      ['orgId'],
      'required',
      'present',
      undefined,
      `you belong to ${orgs.length} orgs, so the org cannot be guessed`,
    ),
  ]);
}
