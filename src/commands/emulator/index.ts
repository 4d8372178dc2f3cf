import { defineCommand, integerOption } from '../types.js';
import { commaList, yesOption } from '../list-options.js';

const admin = () => import('./admin.js');

const urlOption = { flags: '--base-url <url>', description: 'the emulator\'s management URL (default: PLUGSMITH_BASE_URL, else the running one from the state file, else the profile\'s)' };

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
    options: [
      { flags: '--port <port>', description: 'management API port; must be free when given (default: 4010, or a free one when another process, e.g. another project\'s emulator, holds it; 0 picks a free one)', parse: integerOption('--port', 0, 65535) },
      { flags: '--messaging-port <port>', description: 'messaging API port; must be free when given (default: 4011, or a free one when taken; 0 picks a free one)', parse: integerOption('--messaging-port', 0, 65535) },
      { flags: '--host <host>', description: 'interface to listen on', default: '127.0.0.1' },
      { flags: '--allow-remote-admin', description: 'serve the admin API (/_emulator, still with the admin credential) to other machines too, e.g. with --host 0.0.0.0' },
      { flags: '--admin-host <name>', description: 'another host name the admin API answers under (its Host header), e.g. emulator or host.docker.internal; repeatable or comma-separated', parse: commaList },
      { flags: '--data-dir <dir>', description: 'folder of the durable store', default: '.plugsmith/emulator' },
      { flags: '--in-memory', description: 'keep everything in memory (nothing is written)', conflicts: ['dataDir'] },
      { flags: '--seed <file>', description: 'seed file (users, orgs, tokens, agents, characters, API keys) for an empty store' },
      { flags: '--s3-endpoint <url>', description: 'store uploads in S3/MinIO at this URL instead of the embedded store (env PLUGSMITH_S3_ENDPOINT)' },
      { flags: '--s3-access-key <key>', description: 'S3 access key (env PLUGSMITH_S3_ACCESS_KEY; default minioadmin)' },
      { flags: '--s3-secret-key <key>', description: 'S3 secret key (default minioadmin); a flag shows in `ps` to every local user: prefer env PLUGSMITH_S3_SECRET_KEY or --s3-secret-key-file', conflicts: ['s3SecretKeyFile'] },
      { flags: '--s3-secret-key-file <file>', description: 'read the S3 secret key from this file (its first line)' },
      { flags: '--s3-bucket <name>', description: 'bucket, created when absent (env PLUGSMITH_S3_BUCKET; default plugsmith)' },
      { flags: '--s3-region <region>', description: 'S3 region (env PLUGSMITH_S3_REGION; default us-east-1)' },
      { flags: '--faults <profile>', description: 'inject faults into webhook deliveries, e.g. duplicate=0.2,delay=100-500ms,reorder=0.1,drop=0.1,timeout-after-answer=0.05 (docs/fault-injection.md)' },
      { flags: '--faults-seed <seed>', description: 'seed the faults are drawn from (default: a random one, printed); the same seed and events meet the same faults' },
      { flags: '--llm-base-url <url>', description: 'OpenAI-compatible chat-completions base URL for characters with engine "openai", e.g. http://127.0.0.1:11434/v1 (env PLUGSMITH_LLM_BASE_URL)' },
      { flags: '--llm-model <model>', description: 'model name for the LLM backend (env PLUGSMITH_LLM_MODEL)' },
      { flags: '--llm-api-key <key>', description: 'API key for the LLM backend; a flag shows in `ps` to every local user: prefer env PLUGSMITH_LLM_API_KEY or --llm-api-key-file', conflicts: ['llmApiKeyFile'] },
      { flags: '--llm-api-key-file <file>', description: 'read the API key for the LLM backend from this file (its first line)' },
      { flags: '--open', description: 'open the web dashboard in the default browser once ready (env BROWSER names another)' },
    ],
    load: () => import('./start.js'),
  }),
  defineCommand({
    path: ['emulator', 'list'],
    summary: 'List the running emulators: project, URLs, pid, uptime (no credentials)',
    examples: ['plugsmith emulator list', 'plugsmith emulator list --json'],
    load: () => admin().then((m) => ({ default: m.list })),
  }),
  defineCommand({
    path: ['emulator', 'stop'],
    summary: 'Stop a running emulator: this project\'s, or the one a folder or URL names',
    examples: ['plugsmith emulator stop', 'plugsmith emulator stop ../other-plugin', 'plugsmith emulator stop http://127.0.0.1:4010'],
    args: ['[project]'],
    options: [{ flags: '--wait <seconds>', description: 'how long to wait for it to exit', default: 10, parse: integerOption('--wait', 1, 600) }],
    load: () => admin().then((m) => ({ default: m.stop })),
  }),
  defineCommand({
    path: ['emulator', 'exec'],
    summary: 'Run a command (a test suite, in any language) against a fresh in-memory emulator given in its environment; exits with its code',
    examples: [
      'plugsmith emulator exec -- npm test',
      'plugsmith emulator exec --deploy -- python3 -m unittest',
      'plugsmith emulator exec --seed ./seed.json -- "pytest -q"',
      'plugsmith emulator exec --json',
    ],
    args: ['[command...]'],
    options: [
      { flags: '--seed <file>', description: 'seed file of the emulator (default: the default workspace)' },
      { flags: '--deploy', description: 'deploy the project\'s manifest into it first (PLUGSMITH_PLUGIN_ID and PLUGSMITH_WEBHOOK_SECRET are set; the webhook is not verified: the command does that once its receiver listens)' },
      { flags: '--manifest <path>', description: 'the manifest --deploy deploys', default: 'plugsmith.json' },
    ],
    load: () => import('./exec.js'),
  }),
  defineCommand({
    path: ['emulator', 'export'],
    summary: 'Write every record of the running emulator to a JSON file (token hashes, not tokens)',
    examples: ['plugsmith emulator export backup.json', 'plugsmith emulator export state.json --base-url http://127.0.0.1:4010'],
    args: ['<file>'],
    options: [urlOption],
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
    examples: ['plugsmith emulator openapi --output openapi.json', 'plugsmith emulator openapi --base-url http://127.0.0.1:4010'],
    options: [
      { flags: '-o, --output <file>', description: 'write the document to this file instead of stdout' },
      { flags: '--base-url <url>', description: 'read it from this running emulator (default: an in-memory one started for the purpose)' },
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
    summary: 'Print a single-use login link of the running emulator\'s web dashboard (--open opens it)',
    examples: ['plugsmith emulator dashboard --open', 'plugsmith emulator dashboard --json'],
    options: [{ flags: '--open', description: 'open the link in the default browser (env BROWSER names another)' }, urlOption],
    load: () => admin().then((m) => ({ default: m.dashboard })),
  }),
];
