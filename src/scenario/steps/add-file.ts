import { basename, dirname, resolve } from 'node:path';
import type { Static } from '@sinclair/typebox';
import { MAX_FILE_BYTES } from '#contract/requests';
import { uploadRepositoryFile } from '../../client/repository-file.js';
import {
  ProjectPathError,
  readProjectFile,
  resolveExistingInside,
} from '../../shared/project-file.js';
import type { AddFileStepSchema } from '../schema.js';
import type { RunContext, StepModule } from '../context.js';

// The `addFile` step: a file is uploaded and added to a repository, as a user adds one; a
// DATA_PROVIDER is told (REPOSITORY_FILE_ADDED). The file is the scenario's own, not the plugin's
// writing: file expectations leave it out.

export type AddFileStep = Static<typeof AddFileStepSchema>;

export const addFileStep: StepModule<'addFile'> = {
  label: (step) => `add file ${step.name} to ${step.repository}`,
  run: async (step, context) => {
    const { client } = context;
    const bytes =
      step.path !== undefined
        ? await projectFile(step.path, context)
        : Buffer.from(step.content ?? '');
    const contentType = step.contentType ?? contentTypeOf(step.name);
    const repository = await client.repositories.get(step.repository);
    const fileId = await uploadRepositoryFile(client, {
      repositoryId: step.repository,
      orgId: repository.orgId,
      fileName: step.name,
      contentType,
      bytes,
    });
    context.ownFiles.add(fileId);
    return { id: fileId, name: step.name, repositoryId: step.repository };
  },
};

const CONTENT_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
  pdf: 'application/pdf',
};

function contentTypeOf(name: string): string {
  const extension = basename(name).split('.').at(-1)?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'text/plain';
}

/**
 * A file the scenario names, read by the project's one rule (src/shared/project-file.ts): inside the project once links are
 * followed, a regular file opened without blocking, at most the platform's upload limit. Relative to the scenario file's
 * folder, which must itself be inside the project.
 */
async function projectFile(path: string, context: RunContext): Promise<Buffer> {
  const root = resolve(context.projectRoot);
  try {
    const base = context.scenarioFile
      ? await resolveExistingInside(root, dirname(resolve(context.scenarioFile)), {
          label: "the scenario file's folder",
        })
      : root;
    return await readProjectFile(root, path, {
      base,
      maxBytes: MAX_FILE_BYTES,
      label: 'addFile.path',
      refuseEmulatorFiles: true,
    });
  } catch (error) {
    if (error instanceof ProjectPathError) throw new Error(`${error.message}: ${error.fix}`);
    throw error;
  }
}
