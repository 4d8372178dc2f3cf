import { defineCommand, integerOption } from '../types.js';

/** `plugsmith emulator …` */
export const emulatorCommands = [
  defineCommand({
    path: ['emulator', 'start'],
    summary: 'Start the local emulator of the management and messaging APIs',
    examples: [
      'plugsmith emulator start',
      'plugsmith emulator start --port 0 --messaging-port 0 --in-memory',
      'plugsmith emulator start --seed ./seed.json --data-dir ./.plugsmith/emulator',
    ],
    options: [
      { flags: '--port <port>', description: 'management API port (0 picks a free one)', default: 4010, parse: integerOption('--port', 0, 65535) },
      { flags: '--messaging-port <port>', description: 'messaging API port (0 picks a free one)', default: 4011, parse: integerOption('--messaging-port', 0, 65535) },
      { flags: '--host <host>', description: 'interface to listen on', default: '127.0.0.1' },
      { flags: '--data-dir <dir>', description: 'folder of the durable store', default: '.plugsmith/emulator' },
      { flags: '--in-memory', description: 'keep everything in memory (nothing is written)' },
      { flags: '--seed <file>', description: 'seed file (users, orgs, tokens, agents, characters, API keys) for an empty store' },
      { flags: '--s3-endpoint <url>', description: 'store uploads in S3/MinIO at this URL instead of the embedded store (env PLUGSMITH_S3_ENDPOINT)' },
      { flags: '--s3-access-key <key>', description: 'S3 access key (env PLUGSMITH_S3_ACCESS_KEY; default minioadmin)' },
      { flags: '--s3-secret-key <key>', description: 'S3 secret key (env PLUGSMITH_S3_SECRET_KEY; default minioadmin)' },
      { flags: '--s3-bucket <name>', description: 'bucket, created when absent (env PLUGSMITH_S3_BUCKET; default plugsmith)' },
      { flags: '--s3-region <region>', description: 'S3 region (env PLUGSMITH_S3_REGION; default us-east-1)' },
      { flags: '--llm-base-url <url>', description: 'OpenAI-compatible chat-completions base URL for characters with engine "openai", e.g. http://127.0.0.1:11434/v1 (env PLUGSMITH_LLM_BASE_URL)' },
      { flags: '--llm-model <model>', description: 'model name for the LLM backend (env PLUGSMITH_LLM_MODEL)' },
      { flags: '--llm-api-key <key>', description: 'API key for the LLM backend (env PLUGSMITH_LLM_API_KEY)' },
    ],
    load: () => import('./start.js'),
  }),
];
