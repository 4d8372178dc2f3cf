import type { DefinitionKind } from './definitions.js';

/** Plugin actions, with argument and return-value schemas. */
export const ACTIONS: DefinitionKind = {
  noun: 'action',
  plural: 'actions',
  resource: (client) => client.actions,
  schemas: [
    ['--args-schema', 'argsSchema'],
    ['--return-schema', 'returnSchema'],
  ],
};
