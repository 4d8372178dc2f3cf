import type { CommandHandler, TargetFlags } from '../../types.js';
import { printRecord, withClient } from '../../context.js';

/** Adds a file to a repository. */
const add: CommandHandler<TargetFlags> = async (input) => {
  const [repositoryId, fileId] = input.args;
  const result = await withClient(input, { token: true }, (client) => client.repositories.files.add(repositoryId, fileId));
  printRecord(input, result ?? { repositoryId, fileId });
};

export default add;
