import { integerOption, type OptionSpec } from '../types.js';
import { targetOptions } from '../list-options.js';
import { parseSet } from '../../trigger/overrides.js';

/** The options of `plugsmith trigger`, apart from its declaration so that its run function can take its type from them. */
export const triggerOptions = [
  {
    flags: '--plugin <pluginId>',
    description: 'plugin to send to (default: the one this project deployed to this target)',
  },
  {
    flags: '--instance <instanceId>',
    description: "instance to act on (default: the plugin's newest on the right entity)",
  },
  {
    flags: '--set <path=value>',
    description:
      "override one field of the event's data (repeatable; the value is JSON or text; a field the data does not have is refused); the emulator then emits that payload",
    parse: parseSet,
  },
  {
    flags: '--data <@file|json>',
    description:
      'the whole event data, from a file (@path) or inline JSON; the emulator then emits that payload',
  },
  {
    flags: '--direct <url>',
    description:
      "sign a sample event with the plugin's secret and POST it straight to this URL (no emulator involved)",
  },
  {
    flags: '--secret <whsec>',
    description:
      'with --direct: the webhook secret, or - to read it from stdin (default: PLUGSMITH_WEBHOOK_SECRET, else fetched with the plugin)',
  },
  {
    flags: '--wait <seconds>',
    description:
      "how long to wait for the delivery and for the plugin's answer (an EVENT_HANDLER's reply)",
    default: 15,
    parse: integerOption('--wait', 1, 600),
  },
  {
    flags: '--manifest <path>',
    description: "the project's manifest, to find the deployed plugin",
    default: 'plugsmith.json',
  },
  ...targetOptions,
] as const satisfies readonly OptionSpec[];
