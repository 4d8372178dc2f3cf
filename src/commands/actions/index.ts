import { defineCommand } from '../types.js';
import { listOptions, targetOptions, yesOption } from '../list-options.js';

const run = () => import('./definitions.js');

const fields = [
  { flags: '--title <title>', description: 'title shown to people' },
  { flags: '--description <text>', description: 'what the action does' },
  { flags: '--args-schema <file>', description: 'JSON Schema file of the arguments' },
  { flags: '--return-schema <file>', description: 'JSON Schema file of the return value' },
];

/** `plugsmith actions list|get|create|update|delete`. */
export const actionCommands = [
  defineCommand({
    path: ['actions', 'list'],
    summary: 'List a plugin’s actions',
    examples: [
      'plugsmith actions list plg_123',
      'plugsmith actions list plg_123 --search invoice --all --json',
    ],
    args: ['<pluginId>'],
    options: [...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.runList(m.ACTIONS) })),
  }),
  defineCommand({
    path: ['actions', 'get'],
    summary: 'Show one action of a plugin',
    examples: [
      'plugsmith actions get plg_123 send-invoice',
      'plugsmith actions get plg_123 send-invoice --json | jq .argsSchema',
    ],
    args: ['<pluginId>', '<name>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.runGet(m.ACTIONS) })),
  }),
  defineCommand({
    path: ['actions', 'create'],
    summary: 'Add an action to a plugin (MEMBER or OWNER); schemas come from files',
    examples: [
      'plugsmith actions create plg_123 --name send-invoice --title "Send an invoice" --args-schema ./args.json --return-schema ./return.json',
    ],
    args: ['<pluginId>'],
    options: [
      { flags: '--name <name>', description: 'action name (unique in the plugin; used in paths)' },
      ...fields,
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.runCreate(m.ACTIONS) })),
  }),
  defineCommand({
    path: ['actions', 'update'],
    summary: 'Change an action (MEMBER or OWNER)',
    examples: [
      'plugsmith actions update plg_123 send-invoice --description "Sends a PDF invoice"',
      'plugsmith actions update plg_123 send-invoice --args-schema ./args-v2.json',
    ],
    args: ['<pluginId>', '<name>'],
    options: [{ flags: '--name <name>', description: 'new name' }, ...fields, ...targetOptions],
    load: () => run().then((m) => ({ default: m.runUpdate(m.ACTIONS) })),
  }),
  defineCommand({
    path: ['actions', 'delete'],
    summary: 'Delete an action (OWNER only)',
    examples: ['plugsmith actions delete plg_123 send-invoice --yes'],
    args: ['<pluginId>', '<name>'],
    options: [yesOption, ...targetOptions],
    load: () => run().then((m) => ({ default: m.runDelete(m.ACTIONS) })),
  }),
];
