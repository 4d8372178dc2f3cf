import type { CommandHandler, TargetFlags } from '../types.js';
import { printRows, withClient } from '../context.js';
import { PARENT_TYPES } from '../../contract/enum-values.js';
import { UserError, EXIT } from '../../errors.js';
import { askChoice, askText } from '../../ui/dialogs.js';
import { exitCodeOf } from '../../ui/errors.js';
import { note } from '../../ui/output.js';
import { createTransferProgress, formatBytes } from '../../ui/progress.js';
import { styleFor } from '../../ui/style.js';
import { uploadFiles, type UploadOutcome } from './upload-files.js';

interface UploadFlags {
  parentType?: string;
  parentId?: string;
  folder?: string;
  public?: boolean;
  concurrency: number;
}

/**
 * Uploads files and reports each. Exit 0 only when all succeeded; otherwise the code every
 * failure shares (e.g. 7 when the network was down for all), else 1.
 */
const upload: CommandHandler<UploadFlags & TargetFlags> = async (input) => {
  // A variadic argument (<paths...>) arrives as one array.
  const given: unknown = input.args[0];
  const paths = Array.isArray(given) ? given.map(String) : [String(given)];
  const o = input.options;
  const parentType =
    o.parentType ??
    (await askChoice(input.io, { flag: '--parent-type', message: 'Parent type:', choices: PARENT_TYPES.map((value) => ({ value })) }));
  const parentId = o.parentId ?? (await askText(input.io, { flag: '--parent-id', message: 'Parent id:' }));

  const progress = createTransferProgress(input.io, input.global);
  const stderrStyle = styleFor(input.io, input.global, 'stderr');
  let outcomes: UploadOutcome[];
  try {
    outcomes = await withClient(input, { token: true }, (client) =>
      uploadFiles(client, paths, { parentType, parentId, folder: o.folder, isPublic: o.public, concurrency: o.concurrency }, progress),
    );
  } finally {
    progress.stop();
  }

  const shown = outcomes.map(({ cause: _cause, ...rest }) => rest);
  printRows(input, shown, [
    { header: 'FILE', value: (r) => r.path },
    { header: 'STATUS', value: (r) => r.status },
    { header: 'FILE ID', value: (r) => r.fileId },
    { header: 'SIZE', value: (r) => (r.size === null ? null : formatBytes(r.size)) },
    { header: 'ERROR', value: (r) => r.error },
  ], 'files');

  const failed = outcomes.filter((r) => r.status === 'FAILED');
  const summary = `${outcomes.length - failed.length} uploaded, ${failed.length} failed`;
  if (failed.length === 0) {
    note(input.io, input.global, stderrStyle.green(summary));
    return;
  }
  const codes = new Set(failed.map((r) => exitCodeOf(r.cause)));
  const code = codes.size === 1 ? [...codes][0] : EXIT.UNEXPECTED;
  throw new UserError(`${failed.length} of ${outcomes.length} files failed (${summary}): ${failed.map((r) => r.path).join(', ')}`, code);
};

export default upload;
