import type { FastifyRequest } from 'fastify';
import type { Db, InstanceEntityType, InstanceRecord, Scope } from '../model.js';
import { forbidden } from '../errors.js';
import { requireInstance } from './guards.js';

/** The entity an instance token acts on. */
export interface ScopedEntity {
  type: InstanceEntityType;
  id: string;
}

/**
 * The instance behind an installation access token, if it holds `scope` and is attached to
 * `entity`; otherwise a 401 (no or revoked token) or 403. Routes that also accept user tokens
 * call it only when `request.principal?.kind === 'instance'`.
 */
export function requireInstanceScope(db: Db, request: FastifyRequest, scope: Scope, entity: ScopedEntity): InstanceRecord {
  const principal = requireInstance(request);
  const instance = db.instances.get(principal.instanceId);
  if (!instance) throw forbidden('This installation access token belongs to an instance that no longer exists');
  if (!instance.scopes.includes(scope)) {
    throw forbidden(`This installation access token lacks the ${scope} scope (it has ${instance.scopes.join(', ') || 'none'}); install the plugin with "scopes": ["${scope}"]`);
  }
  if (instance.entityType !== entity.type || instance.entityId !== entity.id) {
    throw forbidden(`This installation access token acts only on ${instance.entityType.toLowerCase()} ${instance.entityId}, not ${entity.type.toLowerCase()} ${entity.id}`);
  }
  return instance;
}

/** True when the caller uses an installation access token (so the route should check scopes, not roles). */
export function isInstanceCaller(request: FastifyRequest): boolean {
  return request.principal?.kind === 'instance';
}
