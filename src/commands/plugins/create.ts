import type { CommandHandler, TargetFlags } from '../types.js';
import type { PluginFlags } from './fields.js';
import { naming, orgOf, printRecord, withClient } from '../context.js';
import { askChoice, askText } from '../../ui/dialogs.js';
import { pluginBody, pluginKeys, schemaFiles } from './fields.js';
import type { PluginCreate } from '../../client/index.js';

/** Creates a plugin in the org (--org or the profile's); asks for name and type on a terminal. */
const create: CommandHandler<PluginFlags & TargetFlags> = async (input) => {
  const body = await pluginBody(input);
  body.name ??= await askText(input.io, { flag: '--name', message: 'Plugin name:' });
  body.type ??= await askChoice(input.io, {
    flag: '--type',
    message: 'Plugin type:',
    choices: [
      { value: 'EVENT_HANDLER', description: 'attached to an agent, receives its events' },
      { value: 'APP', description: 'a third-party app integration' },
      { value: 'DATA_PROVIDER', description: 'attached to a repository, receives its file events' },
    ],
  });
  const plugin = await withClient(input, { token: true }, (client, settings) =>
    naming(schemaFiles(input), () => client.plugins.createInOrg(orgOf(settings), body as PluginCreate)),
  );
  printRecord(input, plugin, pluginKeys);
};

export default create;
