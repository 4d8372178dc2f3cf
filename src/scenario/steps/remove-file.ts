import type { Static } from '@sinclair/typebox';
import type { RemoveFileStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `removeFile` step: a file is removed from a repository (REPOSITORY_FILE_REMOVED).

export type RemoveFileStep = Static<typeof RemoveFileStepSchema>;

export const removeFileStep: StepModule<'removeFile'> = {
  label: (step) => `remove file ${step.file} from ${step.repository}`,
  run: async (step, context) => {
    await context.client.repositories.files.remove(step.repository, step.file);
    return { id: step.file };
  },
};
