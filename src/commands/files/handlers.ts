import type { ListFlags } from '../list-options.js';
import type { CommandHandler, TargetFlags } from '../types.js';
import { printList, printRecord, withClient } from '../context.js';
import { fileColumns } from '../repos/columns.js';
import { UserError, EXIT } from '../../errors.js';
import { FILE_STATUSES } from '../../contract/enum-values.js';
import { printResult } from '../../ui/output.js';

/** Lists the files of one parent (both --parent-type and --parent-id, or neither). */
export const list: CommandHandler<{ parentType?: string; parentId?: string } & ListFlags & TargetFlags> = async (input) => {
  const o = input.options;
  if ((o.parentType === undefined) !== (o.parentId === undefined)) {
    throw new UserError(`pass --parent-type and --parent-id together (missing ${o.parentType === undefined ? '--parent-type' : '--parent-id'})`, EXIT.USAGE);
  }
  await withClient(input, { token: true }, (client) =>
    printList(input, (q) => client.uploads.list({ ...q, parentId: o.parentId, parentType: o.parentType }), fileColumns, 'files'),
  );
};

/** Sets a file's status (PATCH /api/status); FAILED needs the reason. */
export const status: CommandHandler<{ error?: string } & TargetFlags> = async (input) => {
  const [fileId, given] = input.args;
  const value = given.toUpperCase();
  if (!(FILE_STATUSES as readonly string[]).includes(value)) throw new UserError(`status must be one of ${FILE_STATUSES.join(', ')}, not "${given}"`, EXIT.USAGE);
  const errorMessage = input.options.error;
  if (value === 'FAILED' && !errorMessage) throw new UserError('missing reason: pass --error MESSAGE with FAILED', EXIT.USAGE);
  const record = await withClient(input, { token: true }, (client) =>
    client.uploads.setStatus({ fileId, status: value, ...(errorMessage ? { errorMessage } : {}) }),
  );
  printRecord(input, record);
};

/** Prints only the URL (for `curl "$(…)"`); --json prints the whole answer. */
export const url: CommandHandler<{ expiresIn?: number } & TargetFlags> = async (input) => {
  const o = input.options;
  const access = await withClient(input, { token: true }, (client) => client.uploads.accessUrl(input.args[0], o.expiresIn));
  if (typeof access?.url !== 'string') throw new UserError(`the platform answered without a URL for file ${input.args[0]}`, EXIT.UNEXPECTED);
  printResult(input.io, input.global, access, () => `${access.url}\n`);
};
