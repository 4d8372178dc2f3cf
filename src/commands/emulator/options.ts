import { integerOption, type OptionSpec, type OptionsOf } from '../types.js';
import { commaList } from '../list-options.js';

/** The options of `plugsmith emulator start`, apart from the declarations so that the run functions can take their types from them. */
export const startOptions = [
  {
    flags: '--port <port>',
    description:
      "management API port; must be free when given (default: 4010, or a free one when another process, e.g. another project's emulator, holds it; 0 picks a free one)",
    parse: integerOption('--port', 0, 65535),
  },
  {
    flags: '--messaging-port <port>',
    description:
      'messaging API port; must be free when given (default: 4011, or a free one when taken; 0 picks a free one)',
    parse: integerOption('--messaging-port', 0, 65535),
  },
  { flags: '--host <host>', description: 'interface to listen on', default: '127.0.0.1' },
  {
    flags: '--allow-remote-admin',
    description:
      'serve the admin API (/_emulator, still with the admin credential) to other machines too, e.g. with --host 0.0.0.0',
  },
  {
    flags: '--admin-host <name>',
    description:
      'another host name the admin API answers under (its Host header), e.g. emulator or host.docker.internal; repeatable or comma-separated',
    parse: commaList,
  },
  {
    flags: '--data-dir <dir>',
    description:
      'folder of the durable store (default: .plugsmith/emulator, never through a symbolic link)',
  },
  {
    flags: '--in-memory',
    description: 'keep everything in memory (nothing is written)',
    conflicts: ['dataDir'],
  },
  {
    flags: '--seed <file>',
    description: 'seed file (users, orgs, tokens, agents, characters, API keys) for an empty store',
  },
  {
    flags: '--s3-endpoint <url>',
    description:
      'store uploads in S3/MinIO at this URL instead of the embedded store (env PLUGSMITH_S3_ENDPOINT)',
  },
  {
    flags: '--s3-access-key <key>',
    description: 'S3 access key (env PLUGSMITH_S3_ACCESS_KEY; default minioadmin)',
  },
  {
    flags: '--s3-secret-key <key>',
    description:
      'S3 secret key (default minioadmin); a flag shows in `ps` to every local user: prefer env PLUGSMITH_S3_SECRET_KEY or --s3-secret-key-file',
    conflicts: ['s3SecretKeyFile'],
  },
  {
    flags: '--s3-secret-key-file <file>',
    description: 'read the S3 secret key from this file (its first line)',
  },
  {
    flags: '--s3-bucket <name>',
    description: 'bucket, created when absent (env PLUGSMITH_S3_BUCKET; default plugsmith)',
  },
  {
    flags: '--s3-region <region>',
    description: 'S3 region (env PLUGSMITH_S3_REGION; default us-east-1)',
  },
  {
    flags: '--faults <profile>',
    description:
      'inject faults into webhook deliveries, e.g. duplicate=0.2,delay=100-500ms,reorder=0.1,drop=0.1,timeout-after-answer=0.05 (docs/fault-injection.md)',
  },
  {
    flags: '--faults-seed <seed>',
    description:
      'seed the faults are drawn from (default: a random one, printed); the same seed and events meet the same faults',
  },
  {
    flags: '--llm-base-url <url>',
    description:
      'OpenAI-compatible chat-completions base URL for characters with engine "openai", e.g. http://127.0.0.1:11434/v1 (env PLUGSMITH_LLM_BASE_URL)',
  },
  {
    flags: '--llm-model <model>',
    description: 'model name for the LLM backend (env PLUGSMITH_LLM_MODEL)',
  },
  {
    flags: '--llm-api-key <key>',
    description:
      'API key for the LLM backend; a flag shows in `ps` to every local user: prefer env PLUGSMITH_LLM_API_KEY or --llm-api-key-file',
    conflicts: ['llmApiKeyFile'],
  },
  {
    flags: '--llm-api-key-file <file>',
    description: 'read the API key for the LLM backend from this file (its first line)',
  },
  {
    flags: '--open',
    description:
      'open the web dashboard in the default browser once ready (env BROWSER names another)',
  },
] as const satisfies readonly OptionSpec[];

/** What `plugsmith emulator start` receives. */
export type StartOptions = OptionsOf<typeof startOptions>;

/** The options of `plugsmith emulator exec`. */
export const execOptions = [
  {
    flags: '--seed <file>',
    description: 'seed file of the emulator (default: the default workspace)',
  },
  {
    flags: '--deploy',
    description:
      "deploy the project's manifest into it first (PLUGSMITH_PLUGIN_ID and PLUGSMITH_WEBHOOK_SECRET are set; the webhook is not verified: the command does that once its receiver listens)",
  },
  {
    flags: '--manifest <path>',
    description: 'the manifest --deploy deploys',
    default: 'plugsmith.json',
  },
  {
    flags: '--grace <seconds>',
    description:
      "how long the command's process group has to end after exec passes it SIGINT, SIGTERM or SIGHUP, before it is killed",
    default: 5,
    parse: integerOption('--grace', 1, 600),
  },
] as const satisfies readonly OptionSpec[];
