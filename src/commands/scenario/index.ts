import { defineCommand } from '../types.js';
import { scenarioRecordOptions, scenarioRunOptions } from './options.js';

/** `plugsmith scenario run`, `validate` and `record` (docs/scenarios.md). */
export const scenarioCommands = [
  defineCommand({
    path: ['scenario', 'run'],
    summary:
      "Run scenario files (default: scenarios/) against the project's emulator and plugin, or a remote platform through its public APIs only (--base-url, a profile): each step, its time and what the plugin did; exit 1 on a failure, 2 on a bad file or a step the target cannot run, 8 when the plugin --start starts does not come up",
    examples: [
      'plugsmith scenario run',
      'plugsmith scenario run scenarios/chat.json --junit report.xml',
      'plugsmith scenario run --faults duplicate=1 --faults-seed 7',
      'plugsmith scenario run --fault-matrix',
      'plugsmith scenario run --start',
      'plugsmith scenario run --base-url https://platform.example --messaging-url https://chat.example',
      'plugsmith scenario run --start --seed ci/seed.json --junit report.xml',
    ],
    args: [
      {
        name: '[paths...]',
        description: 'scenario files, or folders of them (default: scenarios/)',
      },
    ],
    options: scenarioRunOptions,
    load: () => import('./run.js'),
  }),
  defineCommand({
    path: ['scenario', 'validate'],
    summary:
      'Check scenario files (default: scenarios/) without running them: every problem of every file at once, each with its JSON path, line and column, and a fix; exit 2 on a bad file',
    examples: [
      'plugsmith scenario validate',
      'plugsmith scenario validate scenarios/chat.json --json',
    ],
    args: [
      {
        name: '[paths...]',
        description: 'scenario files, or folders of them (default: scenarios/)',
      },
    ],
    load: () => import('./validate.js'),
  }),
  defineCommand({
    path: ['scenario', 'record'],
    summary:
      "Write what happened on the project's emulator since `plugsmith dev` started as a scenario: your actions as steps, the plugin's effects as expectations",
    examples: [
      'plugsmith scenario record -o scenarios/chat.json',
      'plugsmith scenario record -o scenarios/upload.json --since 10m',
    ],
    options: scenarioRecordOptions,
    load: () => import('./record.js'),
  }),
];
