import type { CommandHandler, TargetFlags } from '../types.js';
import { confirmDeletion, withClient } from '../context.js';
import { printResult } from '../../ui/output.js';

/** Deletes a plugin after confirmation (--yes without a terminal). */
const remove: CommandHandler<{ yes?: boolean } & TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  await confirmDeletion(input, `plugin ${pluginId} with its actions and external events`);
  const result = await withClient(input, { token: true }, (client) => client.plugins.delete(pluginId));
  printResult(input.io, input.global, result ?? { id: pluginId, deleted: true }, () => `deleted plugin ${pluginId}\n`);
};

export default remove;
