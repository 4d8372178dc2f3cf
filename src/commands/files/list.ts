import type { ListFlags } from '../list-options.js';
import type { CommandHandler, TargetFlags } from '../types.js';
import { printList, withClient } from '../context.js';
import { fileColumns } from '../repos/columns.js';
import { UserError, EXIT } from '../../errors.js';

/** Lists the files of one parent (both --parent-type and --parent-id, or neither). */
const list: CommandHandler<{ parentType?: string; parentId?: string } & ListFlags & TargetFlags> = async (input) => {
  const o = input.options;
  if ((o.parentType === undefined) !== (o.parentId === undefined)) {
    throw new UserError(`pass --parent-type and --parent-id together (missing ${o.parentType === undefined ? '--parent-type' : '--parent-id'})`, EXIT.USAGE);
  }
  await withClient(input, { token: true }, (client) =>
    printList(input, (q) => client.uploads.list({ ...q, parentId: o.parentId, parentType: o.parentType }), fileColumns, 'files'),
  );
};

export default list;
