import type { DefinitionKind } from '../actions/definitions.js';

/** Plugin external events, with a payload schema. */
export const EXTERNAL_EVENTS: DefinitionKind = {
  noun: 'external event',
  plural: 'external events',
  resource: (client) => client.externalEvents,
  schemas: [['--payload-schema', 'payloadSchema']],
};
