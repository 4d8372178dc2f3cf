import { defineCommand, integerOption } from '../types.js';

/** `plugsmith emulator …` */
export const emulatorCommands = [
  defineCommand({
    path: ['emulator', 'start'],
    summary: 'Start the local emulator of the management and messaging APIs',
    examples: [
      'plugsmith emulator start',
      'plugsmith emulator start --port 0 --messaging-port 0 --in-memory',
      'plugsmith emulator start --seed ./seed.json --data-dir ./.plugsmith/emulator',
    ],
    options: [
      { flags: '--port <port>', description: 'management API port (0 picks a free one)', default: 4010, parse: integerOption('--port', 0, 65535) },
      { flags: '--messaging-port <port>', description: 'messaging API port (0 picks a free one)', default: 4011, parse: integerOption('--messaging-port', 0, 65535) },
      { flags: '--host <host>', description: 'interface to listen on', default: '127.0.0.1' },
      { flags: '--data-dir <dir>', description: 'folder of the durable store', default: '.plugsmith/emulator' },
      { flags: '--in-memory', description: 'keep everything in memory (nothing is written)' },
      { flags: '--seed <file>', description: 'seed file (users, orgs, tokens, agents, characters, API keys) for an empty store' },
    ],
    load: () => import('./start.js'),
  }),
];
