import type { CommandHandler } from '../types.js';
import { printRecord, readJsonFile, withClient } from '../context.js';
import { askText } from '../../ui/dialogs.js';

interface AddFlags {
  plugin?: string;
  name?: string;
  events?: string[];
  scopes?: string[];
  inputs?: string;
  dispatchMode?: string;
}

/**
 * Installs a data provider. Events default to everything the plugin asks for; scopes default
 * to none, so granting a permission is always an explicit --scopes.
 */
const add: CommandHandler = async (input) => {
  const repositoryId = input.args[0];
  const o = input.options as AddFlags;
  const pluginId = o.plugin ?? (await askText(input.io, { flag: '--plugin', message: 'Plugin id:' }));
  const inputs = o.inputs !== undefined ? await readJsonFile('--inputs', o.inputs) : undefined;
  const instance = await withClient(input, { token: true }, async (client) => {
    let { name, events } = o;
    if (name === undefined || events === undefined) {
      const plugin = await client.plugins.get(pluginId);
      name ??= plugin.name;
      events ??= plugin.events ?? [];
    }
    return client.dataProviders.add(repositoryId, {
      name,
      pluginId,
      events,
      scopes: o.scopes ?? [],
      ...(inputs !== undefined ? { inputs } : {}),
      ...(o.dispatchMode !== undefined ? { eventDispatchMode: o.dispatchMode } : {}),
    });
  });
  printRecord(input, instance);
};

export default add;
