import { defineCommand } from '../types.js';
import { initOptions } from './options.js';

/** `plugsmith init`: a plugin project from a template. */
export const initCommands = [
  defineCommand({
    path: ['init'],
    summary:
      'Create a plugin project: a webhook server that verifies signatures, its manifest, README and an end-to-end test',
    examples: [
      'plugsmith init my-plugin',
      'plugsmith init my-plugin --type DATA_PROVIDER --yes',
      'plugsmith init bot --name bot --type EVENT_HANDLER --events AGENT_MESSAGE_RECEIVED --scopes AGENT_MESSAGE_WRITE --port 3001 --yes',
      'plugsmith init . --force --yes --json',
      'plugsmith init my-plugin --lang python --type DATA_PROVIDER --yes',
    ],
    args: ['[dir]'],
    options: initOptions,
    load: () => import('./init.js'),
  }),
];
