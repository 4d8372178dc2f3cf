import { installCommands } from '../installs/commands.js';

/** `plugsmith handlers add|list|remove`. */
export const handlerCommands = installCommands('handlers');
