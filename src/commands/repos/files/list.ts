import type { ListFlags } from '../../list-options.js';
import type { CommandHandler, TargetFlags } from '../../types.js';
import { printList, withClient } from '../../context.js';
import { fileColumns } from '../columns.js';

/** Lists a repository's files. */
const list: CommandHandler<ListFlags & TargetFlags> = (input) =>
  withClient(input, { token: true }, (client) => printList(input, (q) => client.repositories.files.list(input.args[0], q), fileColumns, 'files in this repository'));

export default list;
