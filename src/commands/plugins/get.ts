import type { CommandHandler, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';
import { pluginKeys } from './fields.js';

/** Shows one plugin (--json: the whole record, with the secret when the caller may see it). */
const get: CommandHandler<TargetFlags> = async (input) => {
  const plugin = await withClient(input, { token: true }, (client) => client.plugins.get(input.args[0]));
  printRecord(input, plugin, pluginKeys);
};

export default get;
