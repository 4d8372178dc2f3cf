import { installCommands } from '../installs/commands.js';

/** `plugsmith handlers add|list|remove`. */
export const handlerCommands = installCommands('handlers', {
  add: () => import('./add.js'),
  list: () => import('./list.js'),
  remove: () => import('./remove.js'),
});
