import type { ListFlags } from '../list-options.js';
import type { CommandHandler, TargetFlags } from '../types.js';
import { orgOf, printList, withClient } from '../context.js';
import { pluginColumns } from './fields.js';

/** Lists an org's plugins with the shared query flags. */
const list: CommandHandler<ListFlags & TargetFlags> = (input) =>
  withClient(input, { token: true }, (client, settings) => {
    const orgId = orgOf(settings);
    return printList(input, (q) => client.plugins.listByOrg(orgId, q), pluginColumns, 'plugins');
  });

export default list;
