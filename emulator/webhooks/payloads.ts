import { EVENT_DATA_SCHEMAS, type EventKind } from '../../src/contract/index.js';
import type { ErrorDetail } from '../errors.js';
import { validateAgainst } from '../validation/json-schema.js';

/**
 * What is wrong with an event's `data` for its kind, by the contract's event schemas (the payload
 * the platform would send): an empty list when it fits. A hand-made payload (the dashboard's
 * Trigger, `plugsmith trigger --data`) is held to the same shape a plugin will meet for real.
 */
export function eventDataProblems(type: EventKind, data: unknown): ErrorDetail[] {
  return validateAgainst(EVENT_DATA_SCHEMAS[type], data, ['data']);
}
