import type { CommandHandler, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';

/** Shows one repository. */
const get: CommandHandler<TargetFlags> = async (input) => {
  const repository = await withClient(input, { token: true }, (client) => client.repositories.get(input.args[0]));
  printRecord(input, repository);
};

export default get;
