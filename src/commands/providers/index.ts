import { installCommands } from '../installs/commands.js';

/** `plugsmith providers add|list|remove`. */
export const providerCommands = installCommands('providers', {
  add: () => import('./add.js'),
  list: () => import('./list.js'),
  remove: () => import('./remove.js'),
});
