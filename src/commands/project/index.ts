import { defineCommand } from '../types.js';
import { targetOptions } from '../list-options.js';

/** Project commands: deploy and pull the manifest. */
export const projectCommands = [
  defineCommand({
    path: ['deploy'],
    summary:
      'Make the platform match plugsmith.json: plan, then create, update (and with --allow-deletes, delete)',
    examples: [
      'plugsmith deploy --dry-run',
      'plugsmith deploy',
      'plugsmith deploy --profile production --strict --json',
      'plugsmith deploy --allow-deletes',
    ],
    options: [
      { flags: '--manifest <path>', description: 'the manifest file', default: 'plugsmith.json' },
      { flags: '--dry-run', description: 'print the plan and change nothing' },
      {
        flags: '--allow-deletes',
        description: 'delete actions and external events that the manifest no longer has',
      },
      {
        flags: '--strict',
        description:
          'fail (exit 6) when the platform was changed outside the manifest since the last deploy',
      },
      {
        flags: '--adopt-state',
        description:
          'update the plugin .plugsmith/state.json names on the platform even though no deploy from this folder on this machine recorded it (asked at a terminal; a cloned project may bring the file)',
      },
      { flags: '--org <orgId>', description: "org of the plugin (default: the profile's)" },
      ...targetOptions,
    ],
    load: () => import('./deploy.js'),
  }),
  defineCommand({
    path: ['pull'],
    summary: "Write the platform's plugin, actions and external events as a manifest",
    examples: [
      'plugsmith pull --out remote.json',
      'plugsmith pull --plugin plg_123 --out plugsmith.json --force',
    ],
    options: [
      {
        flags: '--plugin <pluginId>',
        description: 'plugin to pull (default: the one the project of --manifest deployed)',
      },
      {
        flags: '--manifest <path>',
        description: 'the project whose deployed plugin to pull',
        default: 'plugsmith.json',
      },
      { flags: '--out <path>', description: 'file to write (default: the --manifest file)' },
      { flags: '--force', description: 'overwrite an existing file' },
      ...targetOptions,
    ],
    load: () => import('./pull.js'),
  }),
];
