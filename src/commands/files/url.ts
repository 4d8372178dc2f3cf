import type { CommandHandler, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';

/** Prints only the URL (for `curl "$(…)"`); --json prints the whole answer. */
const url: CommandHandler<{ expiresIn?: number } & TargetFlags> = async (input) => {
  const o = input.options;
  const access = await withClient(input, { token: true }, (client) => client.uploads.accessUrl(input.args[0], o.expiresIn));
  if (typeof access?.url !== 'string') throw new UserError(`the platform answered without a URL for file ${input.args[0]}`, EXIT.UNEXPECTED);
  printResult(input.io, input.global, access, () => `${access.url}\n`);
};

export default url;
