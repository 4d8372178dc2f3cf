import { defineCommand } from '../types.js';
import { commaList, listOptions, targetOptions, yesOption } from '../list-options.js';

/** `plugsmith providers add|list|remove`: data providers (plugin instances) of a repository. */
export const providerCommands = [
  defineCommand({
    path: ['providers', 'add'],
    summary: 'Install a DATA_PROVIDER plugin on a repository (the plugin gets PLUGIN_INSTALLED with its token)',
    examples: [
      'plugsmith providers add repo_docs --plugin plg_123 --scopes REPOSITORY_FILES_READ',
      'plugsmith providers add repo_docs --plugin plg_123 --name indexer --events REPOSITORY_FILE_ADDED --inputs ./inputs.json --dispatch-mode SYNC --json',
    ],
    args: ['<repositoryId>'],
    options: [
      { flags: '--plugin <pluginId>', description: 'the DATA_PROVIDER plugin to install (its webhook must be verified)' },
      { flags: '--name <name>', description: 'instance name (default: the plugin’s name)' },
      { flags: '--events <kinds>', description: 'events to receive, comma-separated (default: all of the plugin’s events)', parse: commaList },
      { flags: '--scopes <scopes>', description: 'scopes granted to the instance token, comma-separated (default: none)', parse: commaList },
      { flags: '--inputs <file>', description: 'JSON file of the inputs (checked against the plugin’s inputsSchema)' },
      { flags: '--dispatch-mode <mode>', description: 'SYNC waits for the webhook, ASYNC queues (default ASYNC)', choices: ['SYNC', 'ASYNC'] },
      ...targetOptions,
    ],
    load: () => import('./add.js'),
  }),
  defineCommand({
    path: ['providers', 'list'],
    summary: 'List the data providers of a repository',
    examples: ['plugsmith providers list repo_docs', 'plugsmith providers list repo_docs --filter pluginId=plg_123 --json'],
    args: ['<repositoryId>'],
    options: [...listOptions, ...targetOptions],
    load: () => import('./list.js'),
  }),
  defineCommand({
    path: ['providers', 'remove'],
    summary: 'Uninstall a data provider (OWNER only; the plugin gets PLUGIN_UNINSTALLED)',
    examples: ['plugsmith providers remove repo_docs pin_123 --yes'],
    args: ['<repositoryId>', '<pluginInstanceId>'],
    options: [yesOption, ...targetOptions],
    load: () => import('./remove.js'),
  }),
];
