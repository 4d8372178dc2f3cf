import type { Static } from '@sinclair/typebox';
import { isInstallEntityType } from '#contract/installs';
import { installsOn } from '../../client/installs.js';
import type { UninstallStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `uninstall` step: an instance of the plugin is removed from its entity (PLUGIN_UNINSTALLED).
// The entity is the one an earlier install step remembered, else the emulator's admin API finds it
// (a remote run accepts only instances the scenario installed: target.ts).

export type UninstallStep = Static<typeof UninstallStepSchema>;

export const uninstallStep: StepModule<'uninstall'> = {
  label: (step) => `uninstall ${step.instance}`,
  run: async (step, context) => {
    const { client, pluginId } = context;
    const id = step.instance;
    const known = context.installed.get(id);
    const instance = known
      ? { id, ...known }
      : context.remote
        ? undefined
        : (await client.emulator.instancesOf(pluginId)).find((i) => i.id === id);
    if (!instance || !isInstallEntityType(instance.entityType))
      throw new Error(`plugin ${pluginId} has no instance ${id}`);
    await installsOn(client, instance.entityType).remove(instance.entityId, id);
    return { id };
  },
};
