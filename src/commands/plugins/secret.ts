import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';

/** Prints only the secret (for `$(…)`), or `{ id, webhookSecret }` with --json. */
const secret: CommandHandler<TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  const plugin = await withClient(input, { token: true }, (client) => client.plugins.get(pluginId));
  if (typeof plugin.webhookSecret !== 'string') {
    throw new UserError(`the webhook secret of plugin ${pluginId} is shown only to MEMBERs and OWNERs of its org (${plugin.orgId ?? 'unknown'})`, EXIT.AUTH);
  }
  printResult(input.io, input.global, { id: plugin.id, webhookSecret: plugin.webhookSecret }, () => `${plugin.webhookSecret}\n`);
};

export default secret;
