import { defineCommand } from '../types.js';
import { targetOptions } from '../list-options.js';

const run = () => import('./run.js');

/** `plugsmith conversations create|get` (messaging API, with the API key). */
export const conversationCommands = [
  defineCommand({
    path: ['conversations', 'create'],
    summary: 'Start a conversation with a character',
    examples: [
      'plugsmith conversations create --character char_nova',
      'CONV=$(plugsmith conversations create --character char_nova --json | jq -r .id)',
    ],
    options: [
      { flags: '--character <characterId>', description: 'the character to talk to' },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.create })),
  }),
  defineCommand({
    path: ['conversations', 'get'],
    summary: 'Show a conversation',
    examples: [
      'plugsmith conversations get conv_123',
      'plugsmith conversations get conv_123 --json',
    ],
    args: ['<conversationId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.get })),
  }),
];
