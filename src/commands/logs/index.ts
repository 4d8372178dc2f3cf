import { defineCommand, integerOption } from '../types.js';
import { targetOptions, yesOption } from '../list-options.js';
import { deliveryFilterOptions } from './filters.js';

const run = () => import('./run.js');

/** `plugsmith logs` and `plugsmith logs redeliver|retry|cancel`: the emulator's webhook delivery log. */
export const logsCommands = [
  defineCommand({
    path: ['logs'],
    summary: "Show the emulator's webhook deliveries (newest last); --follow streams attempts live",
    examples: [
      'plugsmith logs',
      'plugsmith logs --status failed --type AGENT_MESSAGE_RECEIVED',
      'plugsmith logs --failed-once --since 1h',
      'plugsmith logs --http-status 5xx,none --plugin plg_123 --json',
      'plugsmith logs --follow',
      'plugsmith logs --follow --json | jq .attempt.responseStatus',
      'plugsmith logs dlv_123',
      'plugsmith logs dlv_123 --json | jq .attempts[0].pluginOutput',
    ],
    args: [
      {
        name: '[deliveryId]',
        description:
          "one delivery: every attempt with its answer, and under it the plugin's own output linked to that attempt (when plugsmith runs the plugin)",
      },
    ],
    options: [
      {
        flags: '-f, --follow',
        description:
          'print each delivery attempt as it happens, until Ctrl+C (with --json: one JSON object per line); filters: --plugin, --type and --status',
      },
      ...deliveryFilterOptions,
      {
        flags: '--limit <n>',
        description: 'how many of the newest deliveries to show',
        default: 20,
        parse: integerOption('--limit', 1, 100),
      },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.logs })),
  }),
  defineCommand({
    path: ['logs', 'redeliver'],
    summary:
      "Send a logged delivery's event again (same event id) and show the new delivery; with filters instead of an id, resend every delivery they match (asks first)",
    examples: [
      'plugsmith logs redeliver dlv_123',
      'plugsmith logs redeliver dlv_123 --json',
      'plugsmith logs redeliver --status failed --plugin plg_123',
      'plugsmith logs redeliver --http-status 5xx,none --since 1h --yes --json',
    ],
    args: [
      {
        name: '[deliveryId]',
        description:
          'the delivery to send again; leave it out and give filters (as `plugsmith logs` takes them) to resend every delivery they match',
      },
    ],
    options: [...deliveryFilterOptions, yesOption, ...targetOptions],
    load: () => run().then((m) => ({ default: m.redeliver })),
  }),
  defineCommand({
    path: ['logs', 'retry'],
    summary:
      "Make a pending delivery's next attempt now, instead of at its scheduled time, and show how it went",
    examples: ['plugsmith logs retry dlv_123', 'plugsmith logs retry dlv_123 --no-wait --json'],
    args: ['<deliveryId>'],
    options: [
      {
        flags: '--no-wait',
        description: 'answer once the attempt has started, without waiting for its outcome',
      },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.retry })),
  }),
  defineCommand({
    path: ['logs', 'cancel'],
    summary: "Cancel a pending delivery's retries: it becomes failed and is never sent again",
    examples: ['plugsmith logs cancel dlv_123', 'plugsmith logs cancel dlv_123 --json'],
    args: ['<deliveryId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.cancel })),
  }),
];
