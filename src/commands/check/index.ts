import { defineCommand, InvalidOptionValue } from '../types.js';
import { targetOptions } from '../list-options.js';

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 600)
    throw new InvalidOptionValue(
      `--delivery-timeout takes seconds, more than 0 and at most 600, not "${value}"`,
    );
  return n;
}

/** `plugsmith check [webhookUrl]` */
export const checkCommands = [
  defineCommand({
    path: ['check'],
    summary:
      'Is my plugin ready? Runs a battery of checks against a running webhook (signatures, replays, duplicates, unknown events, answer time) and prints each with the fix',
    examples: [
      'plugsmith check',
      'plugsmith check --json',
      'plugsmith check http://127.0.0.1:3000/webhook --secret whsec_…',
      'plugsmith check --plugin plg_123 --delivery-timeout 5',
    ],
    args: [
      {
        name: '[webhookUrl]',
        description:
          "the webhook to check (default: the deployed plugin's webhookUrl, else the manifest's)",
      },
    ],
    options: [
      {
        flags: '--plugin <pluginId>',
        description:
          'the plugin (default: the one this project deployed to this target); gives the secret and, on the emulator, the side-effect checks',
      },
      {
        flags: '--secret <whsec>',
        description:
          "the webhook secret to sign with, or - to read it from stdin (default: PLUGSMITH_WEBHOOK_SECRET, else the plugin's, fetched from the platform)",
      },
      {
        flags: '--delivery-timeout <seconds>',
        description: "the platform's delivery timeout every answer must beat",
        default: 10,
        parse: seconds,
      },
      {
        flags: '--manifest <path>',
        description: "the project's manifest, for the webhook URL and the deployed plugin",
        default: 'plugsmith.json',
      },
      ...targetOptions,
    ],
    load: () => import('./check.js'),
  }),
];
