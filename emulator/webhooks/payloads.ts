import { EVENT_DATA_SCHEMAS, type EventKind } from '../../src/contract/index.js';
import type { ErrorDetail } from '../errors.js';
import { validateAgainst } from '../validation/json-schema.js';

/** What is wrong with an event's `data` by the contract's schemas: a hand-made payload is held to the shape a plugin meets for real. */
export function eventDataProblems(type: EventKind, data: unknown): ErrorDetail[] {
  return validateAgainst(EVENT_DATA_SCHEMAS[type], data, ['data']);
}
