import { defineCommand } from '../types.js';
import { listOptions, targetOptions, yesOption } from '../list-options.js';

const run = () => import('../actions/definitions.js');

const fields = [
  { flags: '--title <title>', description: 'title shown to people' },
  { flags: '--description <text>', description: 'what happened in the third-party system' },
  { flags: '--payload-schema <file>', description: 'JSON Schema file of the event payload' },
];

/** `plugsmith events list|get|create|update|delete`: a plugin's external events. */
export const eventCommands = [
  defineCommand({
    path: ['events', 'list'],
    summary: 'List a plugin’s external events',
    examples: ['plugsmith events list plg_123', 'plugsmith events list plg_123 --all --json'],
    args: ['<pluginId>'],
    options: [...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.runList(m.EXTERNAL_EVENTS) })),
  }),
  defineCommand({
    path: ['events', 'get'],
    summary: 'Show one external event of a plugin',
    examples: [
      'plugsmith events get plg_123 invoice.paid',
      'plugsmith events get plg_123 invoice.paid --json | jq .payloadSchema',
    ],
    args: ['<pluginId>', '<eventName>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.runGet(m.EXTERNAL_EVENTS) })),
  }),
  defineCommand({
    path: ['events', 'create'],
    summary: 'Add an external event to a plugin (MEMBER or OWNER); the schema comes from a file',
    examples: [
      'plugsmith events create plg_123 --name invoice.paid --title "Invoice paid" --payload-schema ./payload.json',
    ],
    args: ['<pluginId>'],
    options: [
      { flags: '--name <name>', description: 'event name (unique in the plugin; used in paths)' },
      ...fields,
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.runCreate(m.EXTERNAL_EVENTS) })),
  }),
  defineCommand({
    path: ['events', 'update'],
    summary: 'Change an external event (MEMBER or OWNER)',
    examples: ['plugsmith events update plg_123 invoice.paid --payload-schema ./payload-v2.json'],
    args: ['<pluginId>', '<eventName>'],
    options: [{ flags: '--name <name>', description: 'new name' }, ...fields, ...targetOptions],
    load: () => run().then((m) => ({ default: m.runUpdate(m.EXTERNAL_EVENTS) })),
  }),
  defineCommand({
    path: ['events', 'delete'],
    summary: 'Delete an external event (OWNER only)',
    examples: ['plugsmith events delete plg_123 invoice.paid --yes'],
    args: ['<pluginId>', '<eventName>'],
    options: [yesOption, ...targetOptions],
    load: () => run().then((m) => ({ default: m.runDelete(m.EXTERNAL_EVENTS) })),
  }),
];
