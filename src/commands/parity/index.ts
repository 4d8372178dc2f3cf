import { defineCommand } from '../types.js';
import { targetOptions } from '../list-options.js';

const character = {
  flags: '--character <characterId>',
  description: 'the character the messaging steps talk to (without one they are skipped)',
} as const;
const otherOrg = {
  flags: '--other-org <orgId>',
  description: 'an org you are not a member of, for the 403 step (without one it is skipped)',
} as const;

/** `plugsmith parity record` and `plugsmith parity check` (docs/parity.md). */
export const parityCommands = [
  defineCommand({
    path: ['parity', 'record'],
    summary:
      'Run the probe journey against a real platform with your credentials and write the shapes of its answers (never values, ids or credentials) to a parity file',
    examples: [
      'plugsmith parity record --base-url https://platform.example --messaging-url https://chat.example --org org_123 --character char_456',
      'PLUGSMITH_TOKEN=… PLUGSMITH_API_KEY=… plugsmith parity record -o parity.json --org org_123',
    ],
    options: [
      {
        flags: '-o, --output <file>',
        description: 'where to write the parity file',
        default: 'parity.json',
      },
      {
        flags: '--org <orgId>',
        description: 'the org to create the probe records in (default: the profile’s org)',
      },
      character,
      otherOrg,
      ...targetOptions,
    ],
    load: () => import('./record.js'),
  }),
  defineCommand({
    path: ['parity', 'check'],
    summary:
      "Replay the probe journey on the emulator (an in-memory one, or the running one with --emulator) and compare its answers with a parity file, and the events a plugin received with the emulator's event schemas (--event-shapes); exit 1 when they differ",
    examples: [
      'plugsmith parity check parity.json',
      'plugsmith parity check parity.json --json',
      'plugsmith parity check parity.json --emulator http://127.0.0.1:4010 --character char_nova',
      'plugsmith parity check parity.json --event-shapes event-shapes.json',
      'plugsmith parity check --event-shapes event-shapes.json',
    ],
    args: [
      {
        name: '[file]',
        description:
          'the parity file `parity record` wrote (optional with --event-shapes: then only the events are compared)',
      },
    ],
    options: [
      character,
      otherOrg,
      {
        flags: '--event-shapes <file>',
        description:
          "the shapes of the events a plugin received from the platform (a generated plugin writes them when PLUGSMITH_EVENT_SHAPES names a file), compared with the emulator's event schemas",
      },
    ],
    load: () => import('./check.js'),
  }),
];
