import type { CommandHandler } from '../types.js';
import { confirmDeletion, withClient } from '../context.js';
import { printResult } from '../../ui/output.js';

/** Uninstalls a data provider after confirmation. */
const remove: CommandHandler = async (input) => {
  const [repositoryId, instanceId] = input.args;
  await confirmDeletion(input, `data provider ${instanceId} of repository ${repositoryId}`);
  const result = await withClient(input, { token: true }, (client) => client.dataProviders.remove(repositoryId, instanceId));
  printResult(input.io, input.global, result ?? { id: instanceId, deleted: true }, () => `removed data provider ${instanceId}\n`);
};

export default remove;
