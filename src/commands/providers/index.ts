import { installCommands } from '../installs/commands.js';

/** `plugsmith providers add|list|remove`. */
export const providerCommands = installCommands('providers');
