import type { ListFlags } from '../list-options.js';
import type { CommandHandler, TargetFlags } from '../types.js';
import { orgOf, printList, withClient } from '../context.js';
import { repositoryColumns } from './columns.js';

/** Lists an org's repositories with the shared query flags. */
const list: CommandHandler<ListFlags & TargetFlags> = (input) =>
  withClient(input, { token: true }, (client, settings) => {
    const orgId = orgOf(settings);
    return printList(input, (q) => client.repositories.listByOrg(orgId, q), repositoryColumns, 'repositories');
  });

export default list;
