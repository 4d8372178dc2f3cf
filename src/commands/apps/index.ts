import { installCommands } from '../installs/commands.js';

/** `plugsmith apps add|list|remove`. */
export const appCommands = installCommands('apps');
