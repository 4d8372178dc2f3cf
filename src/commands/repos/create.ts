import type { CommandHandler, TargetFlags } from '../types.js';
import { orgOf, printRecord, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';

/** Creates a repository in the org (--org or the profile's). */
const create: CommandHandler<{ name?: string; description?: string } & TargetFlags> = async (input) => {
  const o = input.options;
  const name = o.name ?? (await askText(input.io, { flag: '--name', message: 'Repository name:' }));
  const repository = await withClient(input, { token: true }, (client, settings) =>
    client.repositories.createInOrg(orgOf(settings), { name, ...(o.description !== undefined ? { description: o.description } : {}) }),
  );
  printRecord(input, repository);
};

export default create;
