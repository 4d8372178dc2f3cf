import { defineCommand, integerOption } from '../types.js';
import { targetOptions } from '../list-options.js';

const STATUSES = ['pending', 'delivered', 'failed', 'exhausted'];

/** `plugsmith logs` and `plugsmith logs redeliver`: the emulator's webhook delivery log. */
export const logsCommands = [
  defineCommand({
    path: ['logs'],
    summary: 'Show the emulator\'s webhook deliveries (newest last); --follow streams attempts live',
    examples: [
      'plugsmith logs',
      'plugsmith logs --status failed --type AGENT_MESSAGE_RECEIVED',
      'plugsmith logs --follow',
      'plugsmith logs --follow --json | jq .attempt.responseStatus',
    ],
    options: [
      { flags: '-f, --follow', description: 'print each delivery attempt as it happens, until Ctrl+C (with --json: one JSON object per line)' },
      { flags: '--type <eventType>', description: 'only this event type' },
      { flags: '--status <status>', description: 'only this status (failed also matches exhausted: every retry failed)', choices: STATUSES },
      { flags: '--plugin <pluginId>', description: 'only this plugin\'s deliveries' },
      { flags: '--limit <n>', description: 'how many of the newest deliveries to show', default: 20, parse: integerOption('--limit', 1, 100) },
      ...targetOptions,
    ],
    load: () => import('./logs.js'),
  }),
  defineCommand({
    path: ['logs', 'redeliver'],
    summary: 'Send a logged delivery\'s event again (same event id) and show the new delivery',
    examples: ['plugsmith logs redeliver dlv_123', 'plugsmith logs redeliver dlv_123 --json'],
    args: ['<deliveryId>'],
    options: [...targetOptions],
    load: () => import('./redeliver.js'),
  }),
];
