import { defineCommand, type OptionSpec } from '../types.js';
import { PLUGIN_TYPES } from '#contract/enum-values';
import {
  commaList,
  eventKindList,
  listOptions,
  orgOption,
  scopeList,
  targetOptions,
  yesOption,
} from '../list-options.js';
import { parseGrace } from './grace.js';

const TYPES = [...PLUGIN_TYPES];
const run = () => import('./run.js');

/** Plugin fields, the same for create and update. */
const fieldOptions: OptionSpec[] = [
  { flags: '--name <name>', description: 'plugin name' },
  { flags: '--type <type>', description: 'EVENT_HANDLER, APP or DATA_PROVIDER', choices: TYPES },
  { flags: '--description <text>', description: 'what the plugin does' },
  {
    flags: '--webhook-url <url>',
    description: 'where events are POSTed (a new URL must be verified again)',
  },
  {
    flags: '--events <kinds>',
    description: 'event kinds it wants, comma-separated or repeated',
    parse: eventKindList,
  },
  {
    flags: '--scopes <scopes>',
    description: 'scopes for instance tokens (AGENT_MESSAGE_WRITE, REPOSITORY_FILES_READ)',
    parse: scopeList,
  },
  { flags: '--tags <tags>', description: 'tags, comma-separated or repeated', parse: commaList },
  {
    flags: '--inputs-schema <file>',
    description: 'JSON Schema file of the inputs an installer supplies',
  },
  { flags: '--public', description: 'visible to other orgs (marketplace)' },
];

/** `plugsmith plugins create|get|list|update|delete|verify|marketplace|secret|secret rotate`. */
export const pluginCommands = [
  defineCommand({
    path: ['plugins', 'create'],
    summary: 'Register a plugin in an org',
    examples: [
      'plugsmith plugins create --name "Docs indexer" --type DATA_PROVIDER --webhook-url https://example.com/webhook --events REPOSITORY_FILE_ADDED,REPOSITORY_FILE_REMOVED --scopes REPOSITORY_FILES_READ',
      'plugsmith plugins create --name Greeter --type EVENT_HANDLER --inputs-schema ./inputs.json --org org_acme --json',
    ],
    options: [...fieldOptions, orgOption, ...targetOptions],
    load: () => run().then((m) => ({ default: m.create })),
  }),
  defineCommand({
    path: ['plugins', 'get'],
    summary: 'Show a plugin',
    examples: [
      'plugsmith plugins get plg_123',
      'plugsmith plugins get plg_123 --json | jq .webhookUrlIsVerified',
    ],
    args: ['<pluginId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.get })),
  }),
  defineCommand({
    path: ['plugins', 'list'],
    summary: 'List the plugins of an org (non-members see public ones only)',
    examples: [
      'plugsmith plugins list',
      'plugsmith plugins list --org org_acme --filter type=APP --sort name --order asc --all --json',
    ],
    options: [orgOption, ...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.list })),
  }),
  defineCommand({
    path: ['plugins', 'update'],
    summary: 'Change a plugin’s fields (a new --webhook-url must be verified again)',
    examples: [
      'plugsmith plugins update plg_123 --webhook-url https://example.com/v2/webhook',
      'plugsmith plugins update plg_123 --private --tags search,files',
    ],
    args: ['<pluginId>'],
    options: [
      ...fieldOptions,
      { flags: '--private', description: 'visible to the owning org only' },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.update })),
  }),
  defineCommand({
    path: ['plugins', 'delete'],
    summary: 'Delete a plugin with its actions and external events (OWNER only)',
    examples: ['plugsmith plugins delete plg_123', 'plugsmith plugins delete plg_123 --yes'],
    args: ['<pluginId>'],
    options: [yesOption, ...targetOptions],
    load: () => run().then((m) => ({ default: m.remove })),
  }),
  defineCommand({
    path: ['plugins', 'verify'],
    summary: 'Verify the plugin’s webhook (sends WEBHOOK_CHALLENGE); exits 1 when not verified',
    examples: ['plugsmith plugins verify plg_123', 'plugsmith plugins verify plg_123 --json'],
    args: ['<pluginId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.verify })),
  }),
  defineCommand({
    path: ['plugins', 'marketplace'],
    summary: 'List public plugins (no token needed)',
    examples: [
      'plugsmith plugins marketplace --search files',
      'plugsmith plugins marketplace --filter tags=ai --filter tags=search --all --json',
    ],
    options: [...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.marketplace })),
  }),
  defineCommand({
    path: ['plugins', 'secret'],
    summary: 'Print the plugin’s webhook signing secret (whsec_…; MEMBER or OWNER)',
    examples: [
      'plugsmith plugins secret plg_123',
      'export WEBHOOK_SECRET="$(plugsmith plugins secret plg_123)"',
    ],
    args: ['<pluginId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.secret })),
  }),
  defineCommand({
    path: ['plugins', 'secret', 'rotate'],
    summary:
      'Give the plugin a new webhook secret; the old one keeps signing beside it for --grace (MEMBER or OWNER)',
    examples: [
      'plugsmith plugins secret rotate plg_123',
      'plugsmith plugins secret rotate plg_123 --grace 1h --json',
      'plugsmith plugins secret rotate plg_123 --grace 0',
    ],
    args: ['<pluginId>'],
    options: [
      {
        flags: '--grace <duration>',
        description:
          'how long the previous secret still signs deliveries: 24h (default), 30m, 90s; 0 stops it at once',
        parse: parseGrace,
      },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.rotate })),
  }),
];
