import type { FastifyRequest } from 'fastify';
import type { Db, InstanceEntityType, InstanceRecord, Scope } from '../model.js';
import { forbidden } from '../errors.js';
import { requireInstance } from './guards.js';

/** The instance behind an installation access token, if it holds `scope` and is attached to `entity`; otherwise a 401 or 403. */
export function requireInstanceScope(
  db: Db,
  request: FastifyRequest,
  scope: Scope,
  entity: { type: InstanceEntityType; id: string },
): InstanceRecord {
  const principal = requireInstance(request);
  const instance = db.instances.get(principal.instanceId);
  if (!instance)
    throw forbidden('This installation access token belongs to an instance that no longer exists');
  if (!instance.scopes.includes(scope)) {
    throw forbidden(
      `This installation access token lacks the ${scope} scope (it has ${instance.scopes.join(', ') || 'none'}); install the plugin with "scopes": ["${scope}"]`,
    );
  }
  if (instance.entityType !== entity.type || instance.entityId !== entity.id) {
    throw forbidden(
      `This installation access token acts only on ${instance.entityType.toLowerCase()} ${instance.entityId}, not ${entity.type.toLowerCase()} ${entity.id}`,
    );
  }
  return instance;
}
