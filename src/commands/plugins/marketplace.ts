import type { ListFlags } from '../list-options.js';
import type { CommandHandler, TargetFlags } from '../types.js';
import { printList, withClient } from '../context.js';
import { pluginColumns } from './fields.js';

/** Lists public plugins; works without a token (one is sent when known). */
const marketplace: CommandHandler<ListFlags & TargetFlags> = (input) =>
  withClient(input, {}, (client) => printList(input, (q) => client.plugins.marketplace(q), pluginColumns, 'public plugins'));

export default marketplace;
