import type { RunCommand, CommandInput, TargetFlags } from '../types.js';
import type { ListFlags } from '../list-options.js';
import {
  confirmDeletion,
  naming,
  orgOf,
  printList,
  printRecord,
  readJsonFile,
  withClient,
} from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { askChoice, askText, refuseUnasked } from '../../ui/dialogs.js';
import { note, printResult, type Column } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import type { Plugin, PluginCreate, PluginUpdate } from '../../client/index.js';

/** Parsed plugin field flags. */
interface PluginFlags {
  name?: string;
  type?: string;
  description?: string;
  webhookUrl?: string;
  events?: string[];
  scopes?: string[];
  tags?: string[];
  inputsSchema?: string;
  public?: boolean;
  private?: boolean;
}

/** Where `--inputs-schema` came from, for error messages (see `naming`). */
function schemaFiles(input: CommandInput<PluginFlags>): Record<string, [string, string]> {
  const path = input.options.inputsSchema;
  return path === undefined ? {} : { inputsSchema: ['--inputs-schema', path] };
}

/** Flags whose value is the body field of the same name. */
const PASSED_AS_IS = [
  'name',
  'type',
  'description',
  'webhookUrl',
  'events',
  'scopes',
  'tags',
] as const;

/** The request body for the flags that were given (nothing for flags left out). */
async function pluginBody(input: CommandInput<PluginFlags>): Promise<PluginUpdate> {
  const o = input.options;
  const given = PASSED_AS_IS.filter((key) => o[key] !== undefined);
  const body: PluginUpdate = Object.fromEntries(given.map((key) => [key, o[key]]));
  if (o.inputsSchema !== undefined)
    body.inputsSchema = await readJsonFile('--inputs-schema', o.inputsSchema);
  if (o.public) body.isPublic = true;
  if (o.private) body.isPublic = false;
  return body;
}

const pluginColumns: Column<Plugin>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'NAME', value: (p) => p.name },
  { header: 'TYPE', value: (p) => p.type },
  { header: 'PUBLIC', value: (p) => (p.isPublic ? 'yes' : 'no') },
  {
    header: 'VERIFIED',
    value: (p) => (p.webhookUrl ? (p.webhookUrlIsVerified ? 'yes' : 'no') : '-'),
  },
  { header: 'WEBHOOK', value: (p) => p.webhookUrl },
];

/** Fields shown by `plugins get` and after create/update, in this order (the secret is left to `plugins secret`). */
const pluginKeys = [
  'id',
  'name',
  'type',
  'orgId',
  'description',
  'isPublic',
  'webhookUrl',
  'webhookUrlIsVerified',
  'events',
  'scopes',
  'tags',
  'inputsSchema',
  'createdAt',
  'updatedAt',
];

/** Creates a plugin in the org (--org or the profile's); asks for name and type on a terminal. */
export const create: RunCommand<PluginFlags & TargetFlags> = async (input) => {
  const body = await pluginBody(input);
  refuseUnasked(input.io, [
    ...(body.name === undefined ? ['--name'] : []),
    ...(body.type === undefined ? ['--type'] : []),
  ]);
  body.name ??= await askText(input.io, { flag: '--name', message: 'Plugin name:' });
  body.type ??= await askChoice(input.io, {
    flag: '--type',
    message: 'Plugin type:',
    choices: [
      { value: 'EVENT_HANDLER', description: 'attached to an agent, receives its events' },
      { value: 'APP', description: 'a third-party app integration' },
      { value: 'DATA_PROVIDER', description: 'attached to a repository, receives its file events' },
    ],
  });
  const plugin = await withClient(input, { token: true }, (client, settings) =>
    naming(schemaFiles(input), () =>
      client.plugins.createInOrg(orgOf(settings), body as PluginCreate),
    ),
  );
  printRecord(input, plugin, pluginKeys);
};

/** Shows one plugin (--json: the whole record, with the secret when the caller may see it). */
export const get: RunCommand<TargetFlags> = async (input) => {
  const plugin = await withClient(input, { token: true }, (client) =>
    client.plugins.get(input.args[0]),
  );
  printRecord(input, plugin, pluginKeys);
};

/** A plugin as a list shows it: without its webhook secret (`plugins get` or `plugins secret` gives one). */
function listed(plugin: Plugin): Plugin {
  const { webhookSecret: _secret, ...shown } = plugin;
  return shown;
}

/**
 * Lists an org's plugins with the shared query flags. `--json` leaves every plugin's webhook secret out: a list is what a
 * CI job pipes or saves to find an id, and it would put each plugin's signing secret in the job's log.
 */
export const list: RunCommand<ListFlags & TargetFlags> = (input) =>
  withClient(input, { token: true }, (client, settings) => {
    const orgId = orgOf(settings);
    return printList(
      input,
      async (q) => {
        const page = await client.plugins.listByOrg(orgId, q);
        return { ...page, data: page.data.map(listed) };
      },
      pluginColumns,
      'plugins',
    );
  });

/** Updates the fields given; a new webhook URL needs `plugins verify` again. */
export const update: RunCommand<PluginFlags & TargetFlags> = async (input) => {
  const o = input.options;
  if (o.public && o.private)
    throw new UserError('pass either --public or --private, not both', EXIT.USAGE);
  const body = await pluginBody(input);
  if (Object.keys(body).length === 0) {
    throw new UserError(
      'nothing to update: pass at least one of --name, --type, --description, --webhook-url, --events, --scopes, --tags, --inputs-schema, --public, --private',
      EXIT.USAGE,
    );
  }
  const plugin = await withClient(input, { token: true }, (client) =>
    naming(schemaFiles(input), () => client.plugins.update(input.args[0], body)),
  );
  printRecord(input, plugin, pluginKeys);
  if ('webhookUrl' in body && body.webhookUrl)
    note(
      input.io,
      input.global,
      `the webhook URL changed: verify it with \`plugsmith plugins verify ${plugin.id}\``,
    );
};

/** Deletes a plugin after confirmation (--yes without a terminal). */
export const remove: RunCommand<{ yes?: boolean } & TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  await confirmDeletion(input, `plugin ${pluginId} with its actions and external events`);
  const result = await withClient(input, { token: true }, (client) =>
    client.plugins.delete(pluginId),
  );
  printResult(
    input.io,
    input.global,
    result ?? { id: pluginId, deleted: true },
    () => `deleted plugin ${pluginId}\n`,
  );
};

/** Sends the webhook challenge; a plugin whose webhook did not answer it is exit 1, with the reason. */
export const verify: RunCommand<TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  const result = await withClient(input, { token: true }, (client) =>
    client.plugins.verifyWebhook(pluginId),
  );
  const style = styleFor(input.io, input.global);
  printResult(input.io, input.global, result, () =>
    result.verified
      ? `${style.green('verified')}: plugin ${pluginId}'s webhook answered the challenge\n`
      : `${style.red('not verified')}: ${result.reason ?? 'no reason given'}\n`,
  );
  if (!result.verified)
    throw new UserError(
      `the webhook of plugin ${pluginId} is not verified${result.reason ? `: ${result.reason}` : ''}`,
      EXIT.UNEXPECTED,
    );
};

/** Lists public plugins; works without a token (one is sent when known). */
export const marketplace: RunCommand<ListFlags & TargetFlags> = (input) =>
  withClient(input, {}, (client) =>
    printList(input, (q) => client.plugins.marketplace(q), pluginColumns, 'public plugins'),
  );

/** Prints only the secret (for `$(…)`), or `{ id, webhookSecret }` with --json. */
export const secret: RunCommand<TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  const plugin = await withClient(input, { token: true }, (client) => client.plugins.get(pluginId));
  if (typeof plugin.webhookSecret !== 'string') {
    throw new UserError(
      `the webhook secret of plugin ${pluginId} is shown only to MEMBERs and OWNERs of its org (${plugin.orgId ?? 'unknown'})`,
      EXIT.AUTH,
    );
  }
  printResult(
    input.io,
    input.global,
    { id: plugin.id, webhookSecret: plugin.webhookSecret },
    () => `${plugin.webhookSecret}\n`,
  );
};

/** Rotates the webhook secret; prints the new secret (for `$(…)`), or the whole rotation with --json. */
export const rotate: RunCommand<{ grace?: number } & TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  // No --grace: the platform's default (24 h).
  const graceSeconds = input.options.grace;
  const rotation = await withClient(input, { token: true }, (client) =>
    client.plugins.rotateWebhookSecret(
      pluginId,
      graceSeconds === undefined ? {} : { graceSeconds },
    ),
  );
  if (!input.global.json && !input.global.quiet) {
    input.io.stderr.write(
      rotation.previousSecretExpiresAt
        ? `plugin ${pluginId}: new webhook secret below; deliveries carry signatures under both secrets until ${rotation.previousSecretExpiresAt}. Give your webhook the new secret before then (PLUGSMITH_WEBHOOK_SECRET="new,old" accepts both meanwhile).\n`
        : `plugin ${pluginId}: new webhook secret below; the previous one no longer signs deliveries.\n`,
    );
  }
  printResult(input.io, input.global, rotation, () => `${rotation.webhookSecret}\n`);
};
