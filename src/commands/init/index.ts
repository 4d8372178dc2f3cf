import { defineCommand, integerOption } from '../types.js';
import { PLUGIN_TYPES } from '../../contract/enum-values.js';
import { LANGUAGES } from '../../project/languages.js';
import { commaList } from '../list-options.js';

/** `plugsmith init`: a plugin project from a template. */
export const initCommands = [
  defineCommand({
    path: ['init'],
    summary: 'Create a plugin project: a webhook server that verifies signatures, its manifest, README and an end-to-end test',
    examples: [
      'plugsmith init my-plugin',
      'plugsmith init my-plugin --type DATA_PROVIDER --yes',
      'plugsmith init bot --name bot --type EVENT_HANDLER --events AGENT_MESSAGE_RECEIVED --scopes AGENT_MESSAGE_WRITE --port 3001 --yes',
      'plugsmith init . --force --yes --json',
      'plugsmith init my-plugin --lang python --type DATA_PROVIDER --yes',
    ],
    args: ['[dir]'],
    options: [
      { flags: '--name <name>', description: 'plugin and npm package name (default: the folder\'s name)' },
      { flags: '--lang <language>', description: 'language of the plugin: typescript, or python (3.10 or later, standard library only); the wizard asks it with the type, else typescript', choices: [...LANGUAGES] },
      { flags: '--type <type>', description: 'plugin type (default: EVENT_HANDLER)', choices: [...PLUGIN_TYPES] },
      { flags: '--events <kinds>', description: 'events the plugin receives, comma-separated (default: the type\'s)', parse: commaList },
      { flags: '--scopes <scopes>', description: 'scopes of its installation tokens, comma-separated (default: the type\'s)', parse: commaList },
      { flags: '--port <port>', description: 'port of its webhook server in development (default: 3000)', parse: integerOption('--port', 1, 65535) },
      { flags: '-y, --yes', description: 'ask nothing: defaults for every value not given (for scripts)' },
      { flags: '--force', description: 'write into a non-empty folder (the template\'s files are overwritten)' },
    ],
    load: () => import('./init.js'),
  }),
];
