import { defineCommand } from '../types.js';
import { devOptions } from './options.js';

/** `plugsmith dev`: the inner loop. */
export const devCommands = [
  defineCommand({
    path: ['dev'],
    summary:
      'Run the inner loop: local emulator, deploy, start and verify the plugin, show deliveries live; redeploy on manifest changes',
    examples: [
      'plugsmith dev',
      'plugsmith dev --cmd "node server.js" --plugin-port 3000',
      'plugsmith dev --no-installs --json',
      'plugsmith dev --faults duplicate=0.2,drop=0.1 --faults-seed 7',
    ],
    options: devOptions,
    load: () => import('./dev.js'),
  }),
];
