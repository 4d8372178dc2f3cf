import type { CommandHandler, TargetFlags } from '../types.js';
import { printRecord, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { FILE_STATUSES } from '../../contract/enum-values.js';

/** Sets a file's status (PATCH /api/status); FAILED needs the reason. */
const status: CommandHandler<{ error?: string } & TargetFlags> = async (input) => {
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

export default status;
