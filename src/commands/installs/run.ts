import type { RunCommand, TargetFlags } from '../types.js';
import type { PlatformClient, InstanceCreate } from '../../client/index.js';
import type { ListFlags } from '../list-options.js';
import { confirmDeletion, printList, printRecord, readJsonFile, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';
import { printResult } from '../../ui/output.js';
import type { InstallKind } from './kinds.js';

interface AddFlags {
  plugin?: string;
  name?: string;
  events?: string[];
  scopes?: string[];
  inputs?: string;
  dispatchMode?: string;
}

/** The three methods of a kind's client resource, whatever the resource calls its install method. */
function resourceOf(client: PlatformClient, kind: InstallKind) {
  const resource = client[kind.resource];
  return {
    install: 'add' in resource ? resource.add : resource.attach,
    list: resource.list,
    remove: resource.remove,
  };
}

/** Installs a plugin on an entity: events default to all the plugin's, scopes to none (granting is always explicit). */
export function runAdd(kind: InstallKind): RunCommand<AddFlags & TargetFlags> {
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
      return resourceOf(client, kind).install(entityId, {
        name,
        pluginId,
        events,
        scopes: o.scopes ?? [],
        ...(inputs !== undefined ? { inputs } : {}),
        ...(o.dispatchMode !== undefined ? { eventDispatchMode: o.dispatchMode } : {}),
        // An app has no record of its own: its first installation says which org it is in.
        ...(kind.pluginType === 'APP' && settings.orgId ? { orgId: settings.orgId } : {}),
      } as InstanceCreate);
    });
    printRecord(input, instance);
  };
}

/** Lists the installations on an entity. */
export function runList(kind: InstallKind): RunCommand<ListFlags & TargetFlags> {
  return (input) =>
    withClient(input, { token: true }, (client) =>
      printList(
        input,
        (q) => resourceOf(client, kind).list(input.args[0], q),
        [
          { header: 'ID', value: (i) => i.id },
          { header: 'NAME', value: (i) => i.name },
          { header: 'PLUGIN', value: (i) => i.pluginId },
          { header: 'EVENTS', value: (i) => i.events },
          { header: 'SCOPES', value: (i) => i.scopes },
          { header: 'MODE', value: (i) => i.eventDispatchMode },
        ],
        `${kind.what}s`,
      ),
    );
}

/** Uninstalls after confirmation. */
export function runRemove(kind: InstallKind): RunCommand<{ yes?: boolean } & TargetFlags> {
  return async (input) => {
    const [entityId, instanceId] = input.args;
    await confirmDeletion(input, `${kind.what} ${instanceId} of ${kind.entity} ${entityId}`);
    const result = await withClient(input, { token: true }, (client) =>
      resourceOf(client, kind).remove(entityId, instanceId),
    );
    printResult(
      input.io,
      input.global,
      result ?? { id: instanceId, deleted: true },
      () => `removed ${kind.what} ${instanceId}\n`,
    );
  };
}
