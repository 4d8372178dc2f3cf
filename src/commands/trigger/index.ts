import { defineCommand, integerOption } from '../types.js';
import { targetOptions } from '../list-options.js';
import { parseSet } from '../../trigger/overrides.js';
import { EVENT_KINDS } from '../../contract/enum-values.js';

/** `plugsmith trigger <EVENT_TYPE>` */
export const triggerCommands = [
  defineCommand({
    path: ['trigger'],
    summary: 'Make the emulator send an event to your plugin for real (sample payloads from fixtures), or sign one and POST it to a URL with --direct',
    examples: [
      'plugsmith trigger AGENT_MESSAGE_RECEIVED',
      'plugsmith trigger REPOSITORY_FILE_ADDED --plugin plg_123 --instance pin_456',
      'plugsmith trigger PLUGIN_INSTALLED --json',
      'plugsmith trigger AGENT_MESSAGE_RECEIVED --set message.content="What is new?"',
      'plugsmith trigger REPOSITORY_FILE_REMOVED --data @./removed.json',
      'plugsmith trigger WEBHOOK_CHALLENGE --direct http://127.0.0.1:3000/webhook --secret whsec_…',
    ],
    args: [{ name: '<eventType>', description: 'the event to send (any case)', choices: EVENT_KINDS }],
    options: [
      { flags: '--plugin <pluginId>', description: 'plugin to send to (default: the one this project deployed to this target)' },
      { flags: '--instance <instanceId>', description: 'instance to act on (default: the plugin\'s newest on the right entity)' },
      { flags: '--set <path=value>', description: 'override one field of the event\'s data (repeatable; the value is JSON or text); the emulator then emits that payload', parse: parseSet },
      { flags: '--data <@file|json>', description: 'the whole event data, from a file (@path) or inline JSON; the emulator then emits that payload' },
      { flags: '--direct <url>', description: 'sign a sample event with the plugin\'s secret and POST it straight to this URL (no emulator involved)' },
      { flags: '--secret <whsec>', description: 'with --direct: the webhook secret (default: fetched with the plugin)' },
      { flags: '--wait <seconds>', description: 'how long to wait for the delivery and for the plugin\'s answer (an EVENT_HANDLER\'s reply)', default: 15, parse: integerOption('--wait', 1, 600) },
      { flags: '--manifest <path>', description: 'the project\'s manifest, to find the deployed plugin', default: 'plugsmith.json' },
      ...targetOptions,
    ],
    load: () => import('./trigger.js'),
  }),
];
