import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';

/** Sends the webhook challenge; a plugin whose webhook did not answer it is exit 1, with the reason. */
const verify: CommandHandler<TargetFlags> = async (input) => {
  const pluginId = input.args[0];
  const result = await withClient(input, { token: true }, (client) => client.plugins.verifyWebhook(pluginId));
  const style = styleFor(input.io, input.global);
  printResult(input.io, input.global, result, () =>
    result.verified ? `${style.green('verified')}: plugin ${pluginId}'s webhook answered the challenge\n` : `${style.red('not verified')}: ${result.reason ?? 'no reason given'}\n`,
  );
  if (!result.verified) throw new UserError(`the webhook of plugin ${pluginId} is not verified${result.reason ? `: ${result.reason}` : ''}`, EXIT.UNEXPECTED);
};

export default verify;
