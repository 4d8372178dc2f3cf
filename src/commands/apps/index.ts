import { installCommands } from '../installs/commands.js';

/** `plugsmith apps add|list|remove`. */
export const appCommands = installCommands('apps', {
  add: () => import('./add.js'),
  list: () => import('./list.js'),
  remove: () => import('./remove.js'),
});
