import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import type { Emulator, Seed } from '../../emulator/index.js';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import {
  cli as inProcessCli,
  emulator,
  emulatorEnv,
  own,
  tempDir,
  type CliResult,
} from './index.js';

/** Credentials of the CLI suite's seed: an OWNER and a VIEWER of org_dev, and a messaging key. */
export const OWNER_TOKEN = 'pst_cli_owner_token';
export const VIEWER_TOKEN = 'pst_cli_viewer_token';
export const API_KEY = 'psk_cli_api_key';
export const ORG = 'org_dev';

/** The seed every CLI test file starts its emulator with. */
export const CLI_SEED: Seed = {
  users: [
    { id: 'user_dev', name: 'Dev' },
    { id: 'user_vic', name: 'Vic' },
  ],
  orgs: [
    {
      id: ORG,
      name: 'Dev org',
      members: [
        { userId: 'user_dev', role: 'OWNER' },
        { userId: 'user_vic', role: 'VIEWER' },
      ],
    },
  ],
  tokens: [
    { userId: 'user_dev', token: OWNER_TOKEN, orgId: null, name: 'owner' },
    { userId: 'user_vic', token: VIEWER_TOKEN, orgId: null, name: 'viewer' },
  ],
  agents: [{ id: 'agent_nova', orgId: ORG, name: 'Nova agent' }],
  characters: [
    {
      id: 'char_nova',
      orgId: ORG,
      agentId: 'agent_nova',
      name: 'Nova',
      script: [{ match: 'hello', reply: 'Hi there!' }],
      fallbackReply: 'Tell me more.',
    },
  ],
  apiKeys: [{ key: API_KEY, orgId: ORG }],
  repositories: [{ id: 'repo_docs', orgId: ORG, name: 'Docs' }],
} as Seed;

/** One emulator and one isolated config dir for a test file, and a CLI runner pointed at them. */
export interface CliEnv {
  emu: Emulator;
  configDir: string;
  /** Environment that points the CLI at the emulator as the OWNER (no profile file needed). */
  env: Record<string, string>;
  /** Runs the CLI with `env` plus `extra` (extra wins). */
  cli(args: string[], extra?: Record<string, string>, input?: string): Promise<CliResult>;
  /** Runs with --json and parses stdout (fails the test with stderr when the exit code is not 0). */
  json<T = any>(args: string[], extra?: Record<string, string>): Promise<T>;
  /** A scratch folder of this file, removed afterwards. */
  dir: string;
  /** An in-process client as the OWNER, for setting up what a test needs without spawning the CLI. */
  api: PlatformClient;
}

/** How a file runs the CLI: in this process by default; `runCli` (test/kit/cli-process.ts) spawns it. */
export type CliRunner = (
  args: string[],
  options: { env: Record<string, string>; input?: string },
) => Promise<CliResult>;

/**
 * Starts the emulator before the file's tests; the kit stops it after them. The CLI runs in this
 * process unless the file passes `{ run: runCli }`: for tests of the process itself (exit on a
 * signal, a closed pipe, a terminal) or of what only a fresh process shows.
 */
export function useCliEnv(options: { run?: CliRunner } = {}): CliEnv {
  const env = {} as CliEnv;
  beforeAll(async () => {
    // Owned by the kit: closed and removed after the file's tests.
    env.emu = await emulator({ seed: CLI_SEED });
    env.configDir = await tempDir('plugsmith-cli-cfg-');
    env.dir = await tempDir('plugsmith-cli-work-');
    env.env = { PLUGSMITH_CONFIG_DIR: env.configDir, ...emulatorEnv(env.emu, OWNER_TOKEN) };
    env.api = createClient({
      baseUrl: env.emu.url,
      messagingUrl: env.emu.messagingUrl,
      token: OWNER_TOKEN,
      apiKey: API_KEY,
      adminToken: env.emu.adminToken,
    });
    own(() => env.api.close());
    const local = await inProcessCli(env.env);
    const run: CliRunner =
      options.run ?? ((args, { env: full, input }) => local.run(args, { env: full, input }));
    env.cli = (args, extra = {}, input) => run(args, { env: { ...env.env, ...extra }, input });
    env.json = async (args, extra) => {
      const result = await env.cli([...args, '--json'], extra);
      if (result.code !== 0)
        throw new Error(`plugsmith ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
  });
  return env;
}

/** Writes a JSON file into `dir` and returns its path. */
export async function jsonFile(dir: string, name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}
