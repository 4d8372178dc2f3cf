import type { CommandHandler, TargetFlags } from '../types.js';
import type { PluginFlags } from './fields.js';
import { naming, printRecord, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { note } from '../../ui/output.js';
import { pluginBody, pluginKeys, schemaFiles } from './fields.js';

/** Updates the fields given; a new webhook URL needs `plugins verify` again. */
const update: CommandHandler<PluginFlags & TargetFlags> = async (input) => {
  const o = input.options;
  if (o.public && o.private) throw new UserError('pass either --public or --private, not both', EXIT.USAGE);
  const body = await pluginBody(input);
  if (Object.keys(body).length === 0) {
    throw new UserError('nothing to update: pass at least one of --name, --type, --description, --webhook-url, --events, --scopes, --tags, --inputs-schema, --public, --private', EXIT.USAGE);
  }
  const plugin = await withClient(input, { token: true }, (client) => naming(schemaFiles(input), () => client.plugins.update(input.args[0], body)));
  printRecord(input, plugin, pluginKeys);
  if ('webhookUrl' in body && body.webhookUrl) note(input.io, input.global, `the webhook URL changed: verify it with \`plugsmith plugins verify ${plugin.id}\``);
};

export default update;
