import type { CommandHandler } from '../types.js';
import { printList, withClient } from '../context.js';

/** Lists a repository's data providers. */
const list: CommandHandler = (input) =>
  withClient(input, { token: true }, (client) =>
    printList(
      input,
      (q) => client.dataProviders.list(input.args[0], q),
      [
        { header: 'ID', value: (i) => i.id },
        { header: 'NAME', value: (i) => i.name },
        { header: 'PLUGIN', value: (i) => i.pluginId },
        { header: 'EVENTS', value: (i) => i.events },
        { header: 'SCOPES', value: (i) => i.scopes },
        { header: 'MODE', value: (i) => i.eventDispatchMode },
      ],
      'data providers',
    ),
  );

export default list;
