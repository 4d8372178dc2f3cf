import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, expect, onTestFinished, test } from 'vitest';
import { CLI, runCli, spawnCli } from '../kit/cli-process.js';
import { stateFiles } from '../kit/emulator-state.js';
import { own, receiver, tempDir } from '../kit/index.js';
import { call } from './in-memory.js';

// A spawned `plugsmith mcp` at the edges of what it may reach: another host, the folder it starts in, the emulator's own
// secrets. The emulator is a spawned `plugsmith emulator start` with a data dir (so it has a storage secret on disk).

interface EmulatorState {
  url: string;
  messagingUrl: string;
  dataDir: string;
}

const BLANK = {
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_TOKEN: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
  PLUGSMITH_ADMIN_TOKEN: '',
  PLUGSMITH_EMULATOR: '',
};

let work: string;
let configDir: string;
let state: EmulatorState;

beforeAll(async () => {
  work = await tempDir('plugsmith-mcp-edges-');
  configDir = join(work, 'config');
  const emulator = spawnCli(
    [
      'emulator',
      'start',
      '--port',
      '0',
      '--messaging-port',
      '0',
      '--data-dir',
      join(work, 'data'),
      '--json',
    ],
    { env: { PLUGSMITH_CONFIG_DIR: configDir, ...BLANK }, onTestFinished: (stop) => own(stop) },
  );
  await emulator.nextLine();
  const [stateFile] = await stateFiles(configDir);
  state = JSON.parse(await readFile(stateFile, 'utf8')) as EmulatorState;
});

async function mcpOver(
  env: Record<string, string>,
  args: string[] = [],
  where: { cwd?: string; emulator?: boolean } = {},
): Promise<Client> {
  const emulatorFlag = where.emulator === false ? [] : ['--emulator', state.url];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, ...emulatorFlag, 'mcp', ...args],
    cwd: where.cwd ?? work,
    env: {
      ...(process.env as Record<string, string>),
      PLUGSMITH_CONFIG_DIR: configDir,
      ...BLANK,
      ...env,
      NO_COLOR: '1',
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'edges-test', version: '1' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

test("a messaging URL on another host is refused before anything is sent: the emulator's API key stays here", async () => {
  const listening = await receiver();
  const port = new URL(listening.webhookUrl).port;
  // prod.example.test is refused by its name (it resolves nowhere offline); this machine's own host name resolves here
  // (to the listening server) but is not named as this machine, so it is refused as well, and nothing reaches the server.
  for (const host of ['prod.example.test', hostname()]) {
    const client = await mcpOver({ PLUGSMITH_MESSAGING_URL: `http://${host}:${port}` });
    for (const [name, args] of [
      ['send_chat_message', { characterId: 'char_nova', message: 'hello' }],
      ['trigger_event', { type: 'AGENT_MESSAGE_RECEIVED', pluginId: 'plg_any' }],
    ] as const) {
      const answer = await call(client, name, args);
      expect(answer.isError, `${host} ${name}: ${JSON.stringify(answer)}`).toBe(true);
      expect(JSON.stringify(answer.content)).toContain('PLUGSMITH_MESSAGING_URL');
    }
  }
  expect(listening.received).toEqual([]);
});

test('a remote base URL is refused as remote first: no token asked for, no request sent', async () => {
  const listening = await receiver();
  const project = await tempDir('plugsmith-mcp-remote-');
  await writeFile(join(project, 'plugsmith.json'), '{"plugin": {"name": "remote"}}');
  const client = await mcpOver(
    { PLUGSMITH_BASE_URL: `http://prod.example.test:${new URL(listening.webhookUrl).port}` },
    [],
    { cwd: project, emulator: false },
  );
  const answer = await call(client, 'emulator_status', {});
  expect(answer.isError, JSON.stringify(answer)).toBe(true);
  expect(JSON.stringify(answer.content)).toContain('plugsmith mcp talks only to a local emulator');
  expect(JSON.stringify(answer.content)).not.toContain('no token');
  expect(listening.received).toEqual([]);
});

test('outside a project and without --emulator, `plugsmith mcp` refuses to start and names both fixes', async () => {
  // An emulator runs (beforeAll): before, the server attached to it silently as "this project's".
  const run = await runCli(['mcp'], {
    cwd: work,
    env: { PLUGSMITH_CONFIG_DIR: configDir, ...BLANK },
  });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain('--emulator');
  expect(run.stderr).toContain('project folder');
  expect(run.stdout).toBe('');
});

test("the emulator's storage secret, typed into a chat, is scrubbed from the answer", async () => {
  const secret = (await readFile(join(state.dataDir, 'storage-secret'), 'utf8')).trim();
  expect(secret.length).toBeGreaterThan(40);
  const client = await mcpOver({});
  const chat = await call(client, 'send_chat_message', {
    characterId: 'char_nova',
    message: `the key is ${secret}`,
    waitSeconds: 20,
  });
  expect(chat.isError, JSON.stringify(chat)).toBeFalsy();
  expect(JSON.stringify(chat)).toContain('the key is');
  expect(JSON.stringify(chat)).not.toContain(secret);
});
