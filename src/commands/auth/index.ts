import { defineCommand } from '../types.js';
import { targetOptions } from '../list-options.js';

const run = () => import('./run.js');

/** `plugsmith login`, `plugsmith whoami`. */
export const authCommands = [
  defineCommand({
    path: ['login'],
    summary:
      'Save a profile: the platform URLs and your credentials (or the running emulator with --local)',
    examples: [
      'plugsmith login --local',
      'echo "$TOKEN" | plugsmith login --base-url https://api.example.com --token - --org org_123',
      'plugsmith login --profile staging --base-url https://staging.example.com --messaging-url https://chat.staging.example.com --token - --api-key -',
    ],
    options: [
      { flags: '--local', description: 'use the running local emulator (from its state file)' },
      { flags: '--base-url <url>', description: 'management API base URL' },
      { flags: '--messaging-url <url>', description: 'messaging API base URL' },
      { flags: '--token <token>', description: 'user token; "-" reads it from stdin' },
      { flags: '--api-key <key>', description: 'messaging API key; "-" reads it from stdin' },
      { flags: '--org <orgId>', description: 'default org for commands' },
    ],
    load: () => run().then((m) => ({ default: m.login })),
  }),
  defineCommand({
    path: ['whoami'],
    summary: 'Show the active profile, where it points, and whether its token works',
    examples: [
      'plugsmith whoami',
      'plugsmith whoami --json',
      'PLUGSMITH_PROFILE=staging plugsmith whoami',
    ],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.whoami })),
  }),
];
