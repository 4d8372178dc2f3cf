import { integerOption, type OptionSpec } from '../types.js';
import { PLUGIN_TYPES } from '#contract/enum-values';
import { LANGUAGES } from '../../project/languages.js';
import { eventKindList, scopeList } from '../list-options.js';

/** The options of `plugsmith init`, apart from its declaration so that its run function can take its type from them. */
export const initOptions = [
  {
    flags: '--name <name>',
    description: "plugin and npm package name (default: the folder's name)",
  },
  {
    flags: '--lang <language>',
    description:
      'language of the plugin: typescript, or python (3.10 or later, standard library only); the wizard asks it with the type, else typescript',
    choices: [...LANGUAGES],
  },
  {
    flags: '--type <type>',
    description: 'plugin type (default: EVENT_HANDLER)',
    choices: [...PLUGIN_TYPES],
  },
  {
    flags: '--events <kinds>',
    description: "events the plugin receives, comma-separated (default: the type's)",
    parse: eventKindList,
  },
  {
    flags: '--scopes <scopes>',
    description: "scopes of its installation tokens, comma-separated (default: the type's)",
    parse: scopeList,
  },
  {
    flags: '--port <port>',
    description: 'port of its webhook server in development (default: 3000)',
    parse: integerOption('--port', 1, 65535),
  },
  {
    flags: '-y, --yes',
    description: 'ask nothing: defaults for every value not given (for scripts)',
  },
  {
    flags: '--force',
    description: "write into a non-empty folder (the template's files are overwritten)",
  },
] as const satisfies readonly OptionSpec[];
