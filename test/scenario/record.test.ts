import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import type { PlatformClient } from '../../src/client/index.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { failureWarning } from '../../src/scenario/record.js';
import { runCli } from '../kit/cli-process.js';
import { emulator, own, tempDir, until } from '../kit/index.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';
import { createClient } from '../../src/client/index.js';

// `plugsmith scenario record` reads the whole delivery log (issue 43): a real emulator, a real
// plugin on a port that answers each message ("You said: …"), fails on "boom" and fails once on
// "flaky", and the CLI spawned against them. A scenario run's deliveries (a fault matrix makes
// hundreds) never push the user's own actions out of the recording.

interface Setup {
  emu: Emulator;
  client: PlatformClient;
  pluginId: string;
  /** Messages the plugin has finished handling (its reply written, or its failure answered). */
  handled: () => number;
  cliEnv: () => Promise<Record<string, string>>;
}

async function setUp(emu: Emulator, client: PlatformClient): Promise<Setup> {
  const { pluginId, handled } = await serveEchoPlugin(emu, client, {
    answer: (text, { attempt }) => {
      if (text === 'boom') throw new Error('boom');
      if (text === 'flaky' && attempt === 1) throw new Error('flaky');
      return `You said: ${text}`;
    },
  });
  await client.agentPlugins.install('agent_nova', {
    name: 'probe',
    pluginId,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    inputs: {},
  } as never);
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  const cliEnv = async () => ({
    PLUGSMITH_CONFIG_DIR: await tempDir('plugsmith-cfg-'),
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_API_KEY: emu.apiKey!,
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken!,
  });
  return { emu, client, pluginId, handled, cliEnv };
}

/** Every delivery of the plugin has settled: none pending. */
async function settled(emu: Emulator, pluginId: string): Promise<void> {
  await until(
    'every delivery of the plugin settled',
    () => emu.deliveries.list({ pluginId, status: 'any' }).every((d) => d.status !== 'pending'),
    { intervalMs: 5 },
  );
}

/** Sends each text in a new conversation, one after the other, each once the plugin has handled the one before. */
async function chat(s: Setup, texts: string[]): Promise<void> {
  const conversation = await s.client.messaging.conversations.create({ characterId: 'char_nova' });
  for (const text of texts) {
    const before = s.handled();
    await s.client.messaging.messages.send(conversation.id, { content: text, type: 'TEXT' });
    await until('the plugin handled the message', () => s.handled() > before, { intervalMs: 5 });
  }
  await settled(s.emu, s.pluginId);
}

/** The message texts of a recorded scenario's steps, in order. */
function messagesOf(scenario: { steps: Array<Record<string, unknown>> }): string[] {
  return scenario.steps.flatMap((step) =>
    step.message ? [(step.message as { text: string }).text] : [],
  );
}

async function mcpCall(
  emu: Emulator,
  args: Record<string, unknown>,
  project?: string,
): Promise<CallToolResult> {
  const server = createMcpServer({
    connect: async () => ({
      client: createClient({
        baseUrl: emu.url,
        messagingUrl: emu.messagingUrl,
        token: emu.token ?? undefined,
        apiKey: emu.apiKey ?? undefined,
        adminToken: emu.adminToken,
      }),
      settings: {
        profileName: null,
        baseUrl: emu.url,
        messagingUrl: emu.messagingUrl,
        orgId: emu.orgId ?? undefined,
        local: true,
      },
      manifestPath: '/nonexistent/plugsmith.json',
      project: project ?? (await tempDir('plugsmith-mcp-record-')),
      credentials: [emu.token, emu.apiKey, emu.adminToken].filter((v): v is string => Boolean(v)),
    }),
    readOnly: false,
    version: 'test',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  own(() => client.close());
  return (await client.callTool({ name: 'record_scenario', arguments: args })) as CallToolResult;
}

describe('after 150+ deliveries, scenario runs among them, record has the newest action', () => {
  let s: Setup;
  const ownTexts = Array.from({ length: 110 }, (_, i) => `own message ${i + 1}`);
  const runTexts = Array.from({ length: 60 }, (_, i) => `scenario message ${i + 1}`);

  beforeAll(async () => {
    const { emu, client } = await emulatorAndClient();
    s = await setUp(emu, client);
    // More of the user's own messages than one page holds, then a scenario run's (as a fault matrix
    // makes them), then the newest action, in a conversation of its own.
    await chat(s, ownTexts);
    await client.emulator.scenario.set('a fault matrix');
    await chat(s, runTexts);
    await client.emulator.scenario.set(null);
    await chat(s, ['the newest message']);
    expect(emu.deliveries.list({ pluginId: s.pluginId, status: 'any' }).length).toBeGreaterThan(
      170,
    );
  }, 300_000);

  test('the CLI records every own message, the newest last, and none of the run', async () => {
    const dir = await tempDir();
    const run = await runCli(
      ['scenario', 'record', '-o', 'scenarios/all.json', '--plugin', s.pluginId],
      { cwd: dir, env: await s.cliEnv() },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('left out 60 deliveries of scenario runs (a fault matrix)');
    expect(run.stderr).not.toContain('warning');
    const scenario = JSON.parse(await readFile(join(dir, 'scenarios', 'all.json'), 'utf8'));
    expect(messagesOf(scenario)).toEqual([...ownTexts, 'the newest message']);
    const newest = scenario.steps.at(-1);
    expect(newest.expect).toContainEqual({ reply: { text: 'You said: the newest message' } });
    expect(scenario.description).not.toContain('WARNING');
    expect(run.stdout).toContain(`wrote scenarios/all.json: ${scenario.steps.length} steps`);
  });

  test('--since 2m (relative) picks up the fresh message behind the scenario run', async () => {
    const dir = await tempDir();
    const run = await runCli(
      ['scenario', 'record', '-o', 'fresh.json', '--since', '2m', '--plugin', s.pluginId, '--json'],
      { cwd: dir, env: await s.cliEnv() },
    );
    expect(run.code, run.stderr).toBe(0);
    const scenario = JSON.parse(await readFile(join(dir, 'fresh.json'), 'utf8'));
    expect(messagesOf(scenario).at(-1)).toBe('the newest message');
    const result = JSON.parse(run.stdout);
    expect(Date.parse(result.since)).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(result.failures).toEqual([]);
    // Again without --force: the recording is kept, and the message says both ways out.
    const again = await runCli(
      ['scenario', 'record', '-o', 'fresh.json', '--since', '2m', '--plugin', s.pluginId],
      { cwd: dir, env: await s.cliEnv() },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      'fresh.json exists: pass --force to overwrite it, or another -o',
    );
    expect(JSON.parse(await readFile(join(dir, 'fresh.json'), 'utf8'))).toEqual(scenario);
  });

  test('a bad --since is refused, naming both forms (and a unit for a bare number)', async () => {
    const dir = await tempDir();
    const env = await s.cliEnv();
    const bare = await runCli(
      ['scenario', 'record', '-o', 'x.json', '--since', '90', '--plugin', s.pluginId],
      { cwd: dir, env },
    );
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--since takes a time (2026-01-31T09:00:00Z) or a duration');
    expect(bare.stderr).toContain('a number needs a unit (90s, 90m, 90h, 90d)');
    const word = await runCli(
      ['scenario', 'record', '-o', 'x.json', '--since', 'yesterday', '--plugin', s.pluginId],
      { cwd: dir, env },
    );
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('not "yesterday"');
  });

  test('MCP record_scenario pages the same way, and takes a relative since', async () => {
    const project = await tempDir('plugsmith-mcp-record-');
    const all = await mcpCall(
      s.emu,
      { pluginId: s.pluginId, output: 'scenarios/all.json' },
      project,
    );
    expect(all.isError, JSON.stringify(all)).toBeFalsy();
    const content = all.structuredContent as {
      notes: string[];
      failures: unknown[];
      untrusted: { scenario: unknown; leftOut?: string };
    };
    // Too large to show: the answer points at the file, and keeps what was left out.
    expect(content.untrusted.scenario).toBeNull();
    expect(content.untrusted.leftOut).toContain('read scenarios/all.json');
    expect(content.notes).toContain('left out 60 deliveries of scenario runs (a fault matrix)');
    expect(content.failures).toEqual([]);
    const written = JSON.parse(await readFile(join(project, 'scenarios/all.json'), 'utf8'));
    expect(messagesOf(written)).toEqual([...ownTexts, 'the newest message']);

    const recent = await mcpCall(
      s.emu,
      { pluginId: s.pluginId, since: '2m', output: 'scenarios/recent.json' },
      project,
    );
    expect(recent.isError, JSON.stringify(recent)).toBeFalsy();
    const fresh = JSON.parse(await readFile(join(project, 'scenarios/recent.json'), 'utf8'));
    expect(messagesOf(fresh).at(-1)).toBe('the newest message');

    const bad = await mcpCall(s.emu, { pluginId: s.pluginId, since: '90' });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad)).toContain('a number needs a unit');
  });
});

describe('a journey with failures says so, in the file and on the terminal', () => {
  test('a 500 and a retried delivery are named in the description and warned about; the file says what happened', async () => {
    // Retries come at once: "boom" runs out of them, "flaky" gets through on its second attempt.
    const emu = await emulator({ delivery: { schedule: [10, 10], jitter: 0 } });
    const client = createClient({
      baseUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      token: emu.token!,
      apiKey: emu.apiKey!,
      adminToken: emu.adminToken,
    });
    own(() => client.close());
    const s = await setUp(emu, client);
    await chat(s, ['hello', 'boom', 'flaky']);
    const deliveries = emu.deliveries.list({
      pluginId: s.pluginId,
      type: 'AGENT_MESSAGE_RECEIVED',
      status: 'any',
    });
    const boom = deliveries.find(
      (d) =>
        (d.event as { data: { message: { content: string } } }).data.message.content === 'boom',
    )!;
    const flaky = deliveries.find(
      (d) =>
        (d.event as { data: { message: { content: string } } }).data.message.content === 'flaky',
    )!;
    expect(boom.status).toBe('exhausted');
    expect(flaky.status).toBe('delivered');

    const dir = await tempDir();
    const run = await runCli(
      ['scenario', 'record', '-o', 'failing.json', '--plugin', s.pluginId, '--quiet'],
      { cwd: dir, env: await s.cliEnv() },
    );
    expect(run.code, run.stderr).toBe(0);
    const scenario = JSON.parse(await readFile(join(dir, 'failing.json'), 'utf8'));
    // steps: install, conversation, hello, boom, flaky
    const boomStep = scenario.steps.findIndex(
      (step: { message?: { text: string } }) => step.message?.text === 'boom',
    );
    const flakyStep = boomStep + 1;
    expect(scenario.steps[boomStep].expect).toContainEqual({
      delivery: { type: 'AGENT_MESSAGE_RECEIVED', count: 1, status: 500 },
    });
    for (const text of [scenario.description, run.stderr]) {
      expect(text).toContain('the recorded journey had 2 failures');
      expect(text).toContain(
        `steps[${boomStep}] (AGENT_MESSAGE_RECEIVED, delivery ${boom.id}): its 3 attempts got 500, 500, 500; it ran out of retries`,
      );
      expect(text).toContain(
        `steps[${flakyStep}] (AGENT_MESSAGE_RECEIVED, delivery ${flaky.id}): its 2 attempts got 500, 200`,
      );
    }
    expect(scenario.description).toContain('WARNING:');
    // --quiet leaves out notes, never the warning.
    expect(run.stderr).toMatch(/^warning: the recorded journey had 2 failures/m);
    expect(run.stdout).toContain('2 of them recorded failing');

    const mcp = await mcpCall(emu, { pluginId: s.pluginId });
    const failures = (mcp.structuredContent as { failures: Array<{ step: number }> }).failures;
    expect(failures.map((f) => f.step)).toEqual([boomStep, flakyStep]);
    expect(JSON.stringify(mcp.content)).toContain('WARNING: the recorded journey had 2 failures');
  });
});

test('the warning names ten failures one by one and counts the rest', () => {
  const failures = Array.from({ length: 12 }, (_, i) => ({
    step: i + 1,
    deliveryId: `dlv_${i + 1}`,
    type: 'AGENT_MESSAGE_RECEIVED',
    what: 'its attempt got 500; it failed',
  }));
  const warning = failureWarning(failures);
  expect(warning).toContain('the recorded journey had 12 failures');
  expect(warning).toContain('steps[10] (AGENT_MESSAGE_RECEIVED, delivery dlv_10)');
  expect(warning).not.toContain('dlv_11');
  expect(warning).toContain(
    'And 2 more steps (record --json and MCP record_scenario list every one as failures)',
  );
  expect(failureWarning(failures.slice(0, 1))).toContain('had a failure,');
});
