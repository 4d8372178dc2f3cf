import type { InstanceEntityType } from '#contract';
import { INSTALL_TARGETS } from '#contract/installs';
import type { RunCommand, TargetFlags } from '../types.js';
import type { InstanceCreate } from '../../client/index.js';
import { installOn, installsOn } from '../../client/installs.js';
import type { ListFlags } from '../list-options.js';
import { confirmDeletion, printList, printRecord, readJsonFile, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';
import { printResult } from '../../ui/output.js';

interface AddFlags {
  plugin?: string;
  name?: string;
  events?: string[];
  scopes?: string[];
  inputs?: string;
  dispatchMode?: string;
}

/** Installs a plugin on an entity: events default to all the plugin's, scopes to none (granting is always explicit). */
export function runAdd(entityType: InstanceEntityType): RunCommand<AddFlags & TargetFlags> {
  return async (input) => {
    const entityId = input.args[0];
    const o = input.options;
    const pluginId =
      o.plugin ?? (await askText(input.io, { flag: '--plugin', message: 'Plugin id:' }));
    const inputs = o.inputs !== undefined ? await readJsonFile('--inputs', o.inputs) : undefined;
    const instance = await withClient(input, { token: true }, async (client, settings) => {
      let { name, events } = o;
      if (name === undefined || events === undefined) {
        const plugin = await client.plugins.get(pluginId);
        name ??= plugin.name;
        events ??= plugin.events ?? [];
      }
      const body: InstanceCreate = {
        name,
        pluginId,
        events,
        scopes: o.scopes ?? [],
        ...(inputs !== undefined ? { inputs } : {}),
        ...(o.dispatchMode !== undefined ? { eventDispatchMode: o.dispatchMode } : {}),
      };
      // On an app, the body names the org (installOn adds it there only).
      return installOn(client, entityType, entityId, body, { orgId: settings.orgId || undefined });
    });
    printRecord(input, instance);
  };
}

/** Lists the installations on an entity. */
export function runList(entityType: InstanceEntityType): RunCommand<ListFlags & TargetFlags> {
  return (input) =>
    withClient(input, { token: true }, (client) =>
      printList(
        input,
        (q) => installsOn(client, entityType).list(input.args[0], q),
        [
          { header: 'ID', value: (i) => i.id },
          { header: 'NAME', value: (i) => i.name },
          { header: 'PLUGIN', value: (i) => i.pluginId },
          { header: 'EVENTS', value: (i) => i.events },
          { header: 'SCOPES', value: (i) => i.scopes },
          { header: 'MODE', value: (i) => i.eventDispatchMode },
        ],
        `${INSTALL_TARGETS[entityType].what}s`,
      ),
    );
}

/** Uninstalls after confirmation. */
export function runRemove(
  entityType: InstanceEntityType,
): RunCommand<{ yes?: boolean } & TargetFlags> {
  const target = INSTALL_TARGETS[entityType];
  return async (input) => {
    const [entityId, instanceId] = input.args;
    await confirmDeletion(input, `${target.what} ${instanceId} of ${target.noun} ${entityId}`);
    const result = await withClient(input, { token: true }, (client) =>
      installsOn(client, entityType).remove(entityId, instanceId),
    );
    printResult(
      input.io,
      input.global,
      result ?? { id: instanceId, deleted: true },
      () => `removed ${target.what} ${instanceId}\n`,
    );
  };
}
