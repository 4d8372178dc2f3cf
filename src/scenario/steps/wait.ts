import type { Static } from '@sinclair/typebox';
import type { WaitStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `wait` step: nothing happens for a while (left at once when the run is aborted).

export type WaitStep = Static<typeof WaitStepSchema>;

export const waitStep: StepModule<'wait'> = {
  label: (step) => `wait ${step.ms} ms`,
  run: async (step, context) => {
    await context.pause(step.ms);
    return {};
  },
};
