import { defineCommand } from '../types.js';
import { targetOptions } from '../list-options.js';

/** `plugsmith doctor`. */
export const doctorCommands = [
  defineCommand({
    path: ['doctor'],
    summary:
      'Check Node, the config file, both API URLs, the token and API key, and the local emulator; exits non-zero on a problem',
    examples: [
      'plugsmith doctor',
      'plugsmith doctor --json',
      'PLUGSMITH_PROFILE=staging plugsmith doctor',
    ],
    options: [...targetOptions],
    load: () => import('./doctor.js'),
  }),
];
