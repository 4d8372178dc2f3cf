import type { Static } from '@sinclair/typebox';
import { entityTypeOfNoun } from '#contract/installs';
import { installOn } from '../../client/installs.js';
import type { InstallStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `install` step: the plugin is installed on an agent, a repository or an app
// (PLUGIN_INSTALLED), with the plugin's own events and scopes unless the step names others. The
// instance is remembered, so that an uninstall or a file check knows it without the admin API.

export type InstallStep = Static<typeof InstallStepSchema>;

export const installStep: StepModule<'install'> = {
  label: (step) => `install on ${step.on} ${step.id}`,
  run: async (step, context) => {
    const { client, plugin } = context;
    const create = {
      name: step.name ?? 'scenario',
      pluginId: context.pluginId,
      events: step.events ?? plugin.events ?? [],
      scopes: step.scopes ?? plugin.scopes ?? [],
      inputs: step.inputs ?? {},
    };
    const entityType = entityTypeOfNoun(step.on);
    const instance = await installOn(client, entityType, step.id, create, { orgId: plugin.orgId });
    context.installed.set(instance.id, { entityType, entityId: step.id });
    return { id: instance.id, entityId: step.id };
  },
};
