import type { ListFlags } from '../list-options.js';
import type { RunCommand, TargetFlags } from '../types.js';
import { printList, printRecord, printRows, withClient } from '../context.js';
import { fileColumns } from '../repos/columns.js';
import { UserError, EXIT } from '../../errors.js';
import { FILE_STATUSES, PARENT_TYPES } from '#contract/enum-values';
import { askChoice, askText, refuseUnasked } from '../../ui/dialogs.js';
import { exitCodeOf } from '../../ui/errors.js';
import { note, printResult } from '../../ui/output.js';
import { createTransferProgress, formatBytes } from '../../ui/progress.js';
import { styleFor } from '../../ui/style.js';
import type { UploadOutcome } from './upload-files.js';

/** Lists the files of one parent (both --parent-type and --parent-id, or neither). */
export const list: RunCommand<
  { parentType?: string; parentId?: string } & ListFlags & TargetFlags
> = async (input) => {
  const o = input.options;
  if ((o.parentType === undefined) !== (o.parentId === undefined)) {
    throw new UserError(
      `pass --parent-type and --parent-id together (missing ${o.parentType === undefined ? '--parent-type' : '--parent-id'})`,
      EXIT.USAGE,
    );
  }
  await withClient(input, { token: true }, (client) =>
    printList(
      input,
      (q) => client.uploads.list({ ...q, parentId: o.parentId, parentType: o.parentType }),
      fileColumns,
      'files',
    ),
  );
};

/** Sets a file's status (PATCH /api/status); FAILED needs the reason. */
export const status: RunCommand<{ error?: string } & TargetFlags> = async (input) => {
  const [fileId, given] = input.args;
  const value = given.toUpperCase();
  if (!(FILE_STATUSES as readonly string[]).includes(value))
    throw new UserError(
      `status must be one of ${FILE_STATUSES.join(', ')}, not "${given}"`,
      EXIT.USAGE,
    );
  const errorMessage = input.options.error;
  if (value === 'FAILED' && !errorMessage)
    throw new UserError('missing reason: pass --error MESSAGE with FAILED', EXIT.USAGE);
  const record = await withClient(input, { token: true }, (client) =>
    client.uploads.setStatus({ fileId, status: value, ...(errorMessage ? { errorMessage } : {}) }),
  );
  printRecord(input, record);
};

/** Prints only the URL (for `curl "$(…)"`); --json prints the whole answer. */
export const url: RunCommand<{ expiresIn?: number } & TargetFlags> = async (input) => {
  const o = input.options;
  const access = await withClient(input, { token: true }, (client) =>
    client.uploads.accessUrl(input.args[0], o.expiresIn),
  );
  if (typeof access?.url !== 'string')
    throw new UserError(
      `the platform answered without a URL for file ${input.args[0]}`,
      EXIT.UNEXPECTED,
    );
  printResult(input.io, input.global, access, () => `${access.url}\n`);
};

interface UploadFlags {
  parentType?: string;
  parentId?: string;
  folder?: string;
  public?: boolean;
  concurrency: number;
}

/** Uploads files and reports each; exit 0 only when all succeeded, else the code every failure shares (7: network down), else 1. */
export const upload: RunCommand<UploadFlags & TargetFlags> = async (input) => {
  // A variadic argument (<paths...>) arrives as one array.
  const given: unknown = input.args[0];
  const paths = Array.isArray(given) ? given.map(String) : [String(given)];
  const o = input.options;
  refuseUnasked(input.io, [
    ...(o.parentType === undefined ? ['--parent-type'] : []),
    ...(o.parentId === undefined ? ['--parent-id'] : []),
  ]);
  const parentType =
    o.parentType ??
    (await askChoice(input.io, {
      flag: '--parent-type',
      message: 'Parent type:',
      choices: PARENT_TYPES.map((value) => ({ value })),
    }));
  const parentId =
    o.parentId ?? (await askText(input.io, { flag: '--parent-id', message: 'Parent id:' }));

  const progress = createTransferProgress(input.io, input.global);
  const stderrStyle = styleFor(input.io, input.global, 'stderr');
  const { uploadFiles } = await import('./upload-files.js');
  let outcomes: UploadOutcome[];
  try {
    outcomes = await withClient(input, { token: true }, (client) =>
      uploadFiles(
        client,
        paths,
        { parentType, parentId, folder: o.folder, isPublic: o.public, concurrency: o.concurrency },
        progress,
      ),
    );
  } finally {
    progress.stop();
  }

  const shown = outcomes.map(({ cause: _cause, ...rest }) => rest);
  printRows(
    input,
    shown,
    [
      { header: 'FILE', value: (r) => r.path },
      { header: 'STATUS', value: (r) => r.status },
      { header: 'FILE ID', value: (r) => r.fileId },
      { header: 'SIZE', value: (r) => (r.size === null ? null : formatBytes(r.size)) },
      { header: 'ERROR', value: (r) => r.error },
    ],
    'files',
  );

  const failed = outcomes.filter((r) => r.status === 'FAILED');
  const summary = `${outcomes.length - failed.length} uploaded, ${failed.length} failed`;
  if (failed.length === 0) {
    note(input.io, input.global, stderrStyle.green(summary));
    return;
  }
  const codes = new Set(failed.map((r) => exitCodeOf(r.cause)));
  const code = codes.size === 1 ? [...codes][0] : EXIT.UNEXPECTED;
  throw new UserError(
    `${failed.length} of ${outcomes.length} files failed (${summary}): ${failed.map((r) => r.path).join(', ')}`,
    code,
  );
};
