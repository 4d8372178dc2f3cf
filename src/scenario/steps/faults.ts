import type { Static } from '@sinclair/typebox';
import type { FaultsStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `faults` step: the emulator's fault profile changes (docs/fault-injection.md) until the
// scenario ends, when the runner sets back the profile it found. The emulator's only: a remote run
// refuses it before anything runs (target.ts).

export type FaultsStep = Static<typeof FaultsStepSchema>;

export const faultsStep: StepModule<'faults'> = {
  label: (step) => `faults ${step.profile}${step.seed !== undefined ? ` (seed ${step.seed})` : ''}`,
  run: async (step, context) => {
    const seed = step.seed === undefined ? undefined : String(step.seed);
    await context.client.emulator.faults.set(step.profile, seed);
    return {};
  },
};
