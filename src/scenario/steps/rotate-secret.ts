import type { Static } from '@sinclair/typebox';
import type { RotateSecretStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `rotateSecret` step: the plugin's webhook secret is rotated; the old one stays valid for its
// grace, so a plugin that reloads its secret keeps verifying deliveries.

export type RotateSecretStep = Static<typeof RotateSecretStepSchema>;

export const rotateSecretStep: StepModule<'rotateSecret'> = {
  label: () => 'rotate the webhook secret',
  run: async (_step, context) => {
    await context.client.plugins.rotateWebhookSecret(context.pluginId);
    return {};
  },
};
