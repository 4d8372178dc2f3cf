import type { CommandHandler, TargetFlags } from '../../types.js';
import { confirmDeletion, withClient } from '../../context.js';
import { printResult } from '../../../ui/output.js';

/** Removes a file from a repository after confirmation. */
const remove: CommandHandler<{ yes?: boolean } & TargetFlags> = async (input) => {
  const [repositoryId, fileId] = input.args;
  await confirmDeletion(input, `file ${fileId} from repository ${repositoryId}`);
  const result = await withClient(input, { token: true }, (client) => client.repositories.files.remove(repositoryId, fileId));
  printResult(input.io, input.global, result ?? { repositoryId, fileId, removed: true }, () => `removed file ${fileId} from repository ${repositoryId}\n`);
};

export default remove;
