import { defineCommand } from '../types.js';
import { targetOptions } from '../list-options.js';

/** `plugsmith tokens create`. */
export const tokenCommands = [
  defineCommand({
    path: ['tokens', 'create'],
    summary: 'Create a user token (printed once: store it now)',
    examples: [
      'plugsmith tokens create --name ci',
      'plugsmith tokens create --name ci-acme --org org_acme --json | jq -r .token',
    ],
    options: [
      { flags: '--name <name>', description: 'a name to recognise the token by' },
      {
        flags: '--org <orgId>',
        description: 'limit the token to this org (default: usable in all your orgs)',
      },
      ...targetOptions,
    ],
    load: () => import('./create.js'),
  }),
];
