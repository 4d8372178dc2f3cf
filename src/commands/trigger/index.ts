import { defineCommand } from '../types.js';
import { EVENT_KINDS } from '#contract/enum-values';
import { triggerOptions } from './options.js';

/** `plugsmith trigger <EVENT_TYPE>` */
export const triggerCommands = [
  defineCommand({
    path: ['trigger'],
    summary:
      'Make the emulator send an event to your plugin for real (sample payloads from fixtures), or sign one and POST it to a URL with --direct',
    examples: [
      'plugsmith trigger AGENT_MESSAGE_RECEIVED',
      'plugsmith trigger REPOSITORY_FILE_ADDED --plugin plg_123 --instance pin_456',
      'plugsmith trigger PLUGIN_INSTALLED --json',
      'plugsmith trigger AGENT_MESSAGE_RECEIVED --set message.content="What is new?"',
      'plugsmith trigger REPOSITORY_FILE_REMOVED --data @./removed.json',
      'plugsmith trigger WEBHOOK_CHALLENGE --direct http://127.0.0.1:3000/webhook --secret whsec_…',
    ],
    args: [
      { name: '<eventType>', description: 'the event to send (any case)', choices: EVENT_KINDS },
    ],
    options: triggerOptions,
    load: () => import('./trigger.js'),
  }),
];
