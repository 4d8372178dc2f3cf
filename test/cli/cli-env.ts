import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type Seed } from '../../emulator/index.js';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import { runCli, type CliResult } from '../helpers/cli-process.js';

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
    { id: 'char_nova', orgId: ORG, agentId: 'agent_nova', name: 'Nova', script: [{ match: 'hello', reply: 'Hi there!' }], fallbackReply: 'Tell me more.' },
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

/** Starts the emulator before the file's tests and stops it after. */
export function useCliEnv(): CliEnv {
  const env = {} as CliEnv;
  beforeAll(async () => {
    env.emu = await startEmulator({ seed: CLI_SEED });
    env.configDir = await mkdtemp(join(tmpdir(), 'plugsmith-cli-cfg-'));
    env.dir = await mkdtemp(join(tmpdir(), 'plugsmith-cli-work-'));
    env.env = {
      PLUGSMITH_CONFIG_DIR: env.configDir,
      PLUGSMITH_BASE_URL: env.emu.url,
      PLUGSMITH_MESSAGING_URL: env.emu.messagingUrl,
      PLUGSMITH_TOKEN: OWNER_TOKEN,
      PLUGSMITH_API_KEY: API_KEY,
      PLUGSMITH_ADMIN_TOKEN: env.emu.adminToken,
    };
    env.api = createClient({ baseUrl: env.emu.url, messagingUrl: env.emu.messagingUrl, token: OWNER_TOKEN, apiKey: API_KEY, adminToken: env.emu.adminToken });
    // A generous kill timer: on a loaded 2-core machine one spawn can take seconds.
    env.cli = (args, extra = {}, input) => runCli(args, { env: { ...env.env, ...extra }, input, timeoutMs: 60_000 });
    env.json = async (args, extra) => {
      const result = await env.cli([...args, '--json'], extra);
      if (result.code !== 0) throw new Error(`plugsmith ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
  });
  afterAll(async () => {
    await env.api?.close();
    await env.emu?.close();
    await rm(env.configDir, { recursive: true, force: true });
    await rm(env.dir, { recursive: true, force: true });
  });
  return env;
}

/** Writes a JSON file into `dir` and returns its path. */
export async function jsonFile(dir: string, name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** A plugin's webhook: answers WEBHOOK_CHALLENGE (or refuses every request when `refuse`). */
export async function webhookServer(options: { refuse?: boolean } = {}): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (options.refuse) {
        res.writeHead(500).end('no');
        return;
      }
      const event = JSON.parse(body || '{}') as { type?: string; data?: { challenge?: string } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(event.type === 'WEBHOOK_CHALLENGE' ? { challenge: event.data?.challenge } : { ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhook`, server, close: () => new Promise((r) => server.close(() => r())) };
}
