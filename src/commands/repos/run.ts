import type { ListFlags } from '../list-options.js';
import type { RunCommand, TargetFlags } from '../types.js';
import { confirmDeletion, orgOf, printList, printRecord, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';
import { printResult } from '../../ui/output.js';
import { fileColumns, repositoryColumns } from './columns.js';

/** Creates a repository in the org (--org or the profile's). */
export const create: RunCommand<{ name?: string; description?: string } & TargetFlags> = async (
  input,
) => {
  const o = input.options;
  const name = o.name ?? (await askText(input.io, { flag: '--name', message: 'Repository name:' }));
  const repository = await withClient(input, { token: true }, (client, settings) =>
    client.repositories.createInOrg(orgOf(settings), {
      name,
      ...(o.description !== undefined ? { description: o.description } : {}),
    }),
  );
  printRecord(input, repository);
};

/** Shows one repository. */
export const get: RunCommand<TargetFlags> = async (input) => {
  const repository = await withClient(input, { token: true }, (client) =>
    client.repositories.get(input.args[0]),
  );
  printRecord(input, repository);
};

/** Lists an org's repositories with the shared query flags. */
export const list: RunCommand<ListFlags & TargetFlags> = (input) =>
  withClient(input, { token: true }, (client, settings) => {
    const orgId = orgOf(settings);
    return printList(
      input,
      (q) => client.repositories.listByOrg(orgId, q),
      repositoryColumns,
      'repositories',
    );
  });

/** Adds a file to a repository. */
export const addFile: RunCommand<TargetFlags> = async (input) => {
  const [repositoryId, fileId] = input.args;
  const result = await withClient(input, { token: true }, (client) =>
    client.repositories.files.add(repositoryId, fileId),
  );
  printRecord(input, result ?? { repositoryId, fileId });
};

/** Lists a repository's files. */
export const listFiles: RunCommand<ListFlags & TargetFlags> = (input) =>
  withClient(input, { token: true }, (client) =>
    printList(
      input,
      (q) => client.repositories.files.list(input.args[0], q),
      fileColumns,
      'files in this repository',
    ),
  );

/** Removes a file from a repository after confirmation. */
export const removeFile: RunCommand<{ yes?: boolean } & TargetFlags> = async (input) => {
  const [repositoryId, fileId] = input.args;
  await confirmDeletion(input, `file ${fileId} from repository ${repositoryId}`);
  const result = await withClient(input, { token: true }, (client) =>
    client.repositories.files.remove(repositoryId, fileId),
  );
  printResult(
    input.io,
    input.global,
    result ?? { repositoryId, fileId, removed: true },
    () => `removed file ${fileId} from repository ${repositoryId}\n`,
  );
};
