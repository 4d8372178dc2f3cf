import { defineCommand, integerOption } from '../types.js';
import { yesOption } from '../list-options.js';
import { execOptions, startOptions } from './options.js';

const run = () => import('./start.js');
const admin = () => import('./admin.js');

const urlOption = {
  flags: '--base-url <url>',
  description:
    "the emulator's management URL (default: PLUGSMITH_BASE_URL, else the running one from the state file, else the profile's)",
};

/** `plugsmith emulator …` */
export const emulatorCommands = [
  defineCommand({
    path: ['emulator', 'start'],
    summary: 'Start the local emulator of the management and messaging APIs',
    examples: [
      'plugsmith emulator start',
      'plugsmith emulator start --port 0 --messaging-port 0 --in-memory',
      'plugsmith emulator start --seed ./seed.json --data-dir ./.plugsmith/emulator',
      'plugsmith emulator start --in-memory --faults duplicate=0.2,drop=0.1 --faults-seed 42',
    ],
    options: startOptions,
    load: () => run().then((m) => ({ default: m.start })),
  }),
  defineCommand({
    path: ['emulator', 'list'],
    summary: 'List the running emulators: project, URLs, pid, uptime (no credentials)',
    examples: ['plugsmith emulator list', 'plugsmith emulator list --json'],
    load: () => admin().then((m) => ({ default: m.list })),
  }),
  defineCommand({
    path: ['emulator', 'stop'],
    summary: "Stop a running emulator: this project's, or the one a folder or URL names",
    examples: [
      'plugsmith emulator stop',
      'plugsmith emulator stop ../other-plugin',
      'plugsmith emulator stop http://127.0.0.1:4010',
    ],
    args: ['[project]'],
    options: [
      {
        flags: '--wait <seconds>',
        description: 'how long to wait for it to exit',
        default: 10,
        parse: integerOption('--wait', 1, 600),
      },
    ],
    load: () => admin().then((m) => ({ default: m.stop })),
  }),
  defineCommand({
    path: ['emulator', 'exec'],
    summary:
      'Run a command (a test suite, in any language) against a fresh in-memory emulator given in its environment; exits with its code',
    examples: [
      'plugsmith emulator exec -- npm test',
      'plugsmith emulator exec --deploy -- python3 -m unittest',
      'plugsmith emulator exec --seed ./seed.json -- "pytest -q"',
      'plugsmith emulator exec --json',
    ],
    args: ['[command...]'],
    options: execOptions,
    load: () => run().then((m) => ({ default: m.exec })),
  }),
  defineCommand({
    path: ['emulator', 'export'],
    summary: 'Write every record of the running emulator to a JSON file (token hashes, not tokens)',
    examples: [
      'plugsmith emulator export backup.json',
      'plugsmith emulator export state.json --base-url http://127.0.0.1:4010',
      'plugsmith emulator export backup.json --force',
    ],
    args: ['<file>'],
    options: [urlOption, { flags: '--force', description: 'overwrite the file when it exists' }],
    load: () => admin().then((m) => ({ default: m.exportCommand })),
  }),
  defineCommand({
    path: ['emulator', 'import'],
    summary: 'Replace every record of the running emulator with an export file',
    examples: ['plugsmith emulator import backup.json --yes'],
    args: ['<file>'],
    options: [yesOption, urlOption],
    load: () => admin().then((m) => ({ default: m.importCommand })),
  }),
  defineCommand({
    path: ['emulator', 'openapi'],
    summary: 'Print the OpenAPI 3.1 document of the management, messaging and admin APIs',
    examples: [
      'plugsmith emulator openapi --output openapi.json',
      'plugsmith emulator openapi --base-url http://127.0.0.1:4010',
    ],
    options: [
      {
        flags: '-o, --output <file>',
        description: 'write the document to this file instead of stdout',
      },
      {
        flags: '--base-url <url>',
        description:
          'read it from this running emulator (default: an in-memory one started for the purpose)',
      },
    ],
    load: () => import('./openapi.js'),
  }),
  defineCommand({
    path: ['emulator', 'reset'],
    summary: 'Empty the running emulator and load its seed again',
    examples: ['plugsmith emulator reset --yes'],
    options: [yesOption, urlOption],
    load: () => admin().then((m) => ({ default: m.reset })),
  }),
  defineCommand({
    path: ['emulator', 'dashboard'],
    summary:
      "Print a single-use login link of the running emulator's web dashboard (--open opens it)",
    examples: ['plugsmith emulator dashboard --open', 'plugsmith emulator dashboard --json'],
    options: [
      {
        flags: '--open',
        description: 'open the link in the default browser (env BROWSER names another)',
      },
      urlOption,
    ],
    load: () => admin().then((m) => ({ default: m.dashboard })),
  }),
];
