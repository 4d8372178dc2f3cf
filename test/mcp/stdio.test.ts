import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, onTestFinished, test } from 'vitest';
import { CLI, spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { freePort } from '../helpers/ports.js';

// A spawned `plugsmith mcp` over stdio, in a project whose `plugsmith dev` runs: what an agent does.

const SERVER_JS = `import ${JSON.stringify(pathToFileURL(resolve(import.meta.dirname, '../fixtures/plugins/replying-handler.mjs')).href)};\n`;

const MANIFEST = JSON.stringify({
  plugin: {
    name: 'MCP loop plugin',
    description: 'answers every message',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    webhookUrl: 'http://127.0.0.1:${PORT}/webhook',
  },
  installs: [{ name: 'on nova', agent: 'agent_nova' }],
});

async function lineMatching(dev: CliProcess, pattern: RegExp): Promise<string> {
  for (;;) {
    const line = await dev.nextLine();
    if (pattern.test(line)) return line;
  }
}

async function mcpOver(
  dir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    cwd: dir,
    env: { ...(process.env as Record<string, string>), ...env, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

test('spawned `plugsmith mcp` beside `plugsmith dev`: trigger, find the delivery answered, resend it; read-only offers no write tool; a bad argument is a tool error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-mcp-'));
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-mcp-cfg-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
  });
  await writeFile(join(dir, 'server.js'), SERVER_JS);
  await writeFile(join(dir, 'plugsmith.json'), MANIFEST);
  const env = {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  };
  const port = await freePort();
  const dev = spawnCli(
    [
      'dev',
      '--cmd',
      'node server.js',
      '--plugin-port',
      String(port),
      '--emulator-port',
      '0',
      '--messaging-port',
      '0',
    ],
    { cwd: dir, env },
  );
  await lineMatching(dev, /PLUGIN_INSTALLED\s+delivered {2}HTTP 200/);

  const client = await mcpOver(dir, env);
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining([
      'run_scenarios',
      'record_scenario',
      'trigger_event',
      'list_deliveries',
      'resend_delivery',
      'run_check',
      'send_chat_message',
    ]),
  );

  // No pluginId: the project's plugin, as dev deployed it.
  const triggered = await call(client, 'trigger_event', { type: 'AGENT_MESSAGE_RECEIVED' });
  expect(triggered.isError, JSON.stringify(triggered)).toBeFalsy();
  const structured = triggered.structuredContent as {
    delivery: { id: string };
    reply: { untrusted: { content: string } };
  };
  expect(structured.reply.untrusted.content).toMatch(/^You said: /);
  const deliveryId = structured.delivery.id;

  const listed = await call(client, 'list_deliveries', { type: 'AGENT_MESSAGE_RECEIVED' });
  const rows = (listed.structuredContent as { deliveries: Array<{ id: string; status: string }> })
    .deliveries;
  expect(rows.find((row) => row.id === deliveryId)).toMatchObject({ status: 'delivered' });

  // The message and the plugin's reply, recorded as a scenario in the project, then run again.
  const recorded = await call(client, 'record_scenario', { output: 'scenarios/recorded.json' });
  expect(recorded.isError, JSON.stringify(recorded)).toBeFalsy();
  expect(existsSync(join(dir, 'scenarios', 'recorded.json'))).toBe(true);
  const escaped = await call(client, 'record_scenario', { output: '../elsewhere.json' });
  expect(escaped.isError).toBe(true);
  const ran = await call(client, 'run_scenarios', {});
  expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
  expect(ran.structuredContent).toMatchObject({
    ok: true,
    scenarios: [expect.objectContaining({ name: 'recorded', ok: true })],
  });
  const tagged = await call(client, 'list_deliveries', { scenario: 'recorded' });
  const ofScenario = (tagged.structuredContent as { deliveries: Array<{ scenario: string }> })
    .deliveries;
  expect(ofScenario.length).toBeGreaterThan(0);
  expect(ofScenario.every((d) => d.scenario === 'recorded')).toBe(true);

  const resent = await call(client, 'resend_delivery', { deliveryId });
  expect(resent.structuredContent).toMatchObject({
    delivery: { redeliveryOf: deliveryId, status: 'delivered' },
  });

  const bad = await call(client, 'get_delivery', { deliveryId: 42 });
  expect(bad.isError).toBe(true);
  // The server still serves after the bad call.
  expect((await call(client, 'emulator_status')).isError).toBeFalsy();

  const readOnly = await mcpOver(dir, env, ['--read-only']);
  const offered = (await readOnly.listTools()).tools;
  expect(offered.length).toBeGreaterThan(0);
  expect(offered.filter((t) => t.annotations?.readOnlyHint !== true)).toEqual([]);
  const countOf = async () => {
    const listed = await call(readOnly, 'list_deliveries', {
      type: 'AGENT_MESSAGE_RECEIVED',
      limit: 100,
    });
    return (listed.structuredContent as { deliveries: unknown[] }).deliveries.length;
  };
  const before = await countOf();
  const refused = await call(readOnly, 'resend_delivery', { deliveryId });
  expect(refused.isError).toBe(true);
  expect(await countOf()).toBe(before);

  // From another folder, --emulator names the project: the same emulator.
  const status = await call(client, 'emulator_status');
  const elsewhere = await mcpOver(configDir, env, ['--read-only', '--emulator', dir]);
  const there = await call(elsewhere, 'emulator_status');
  expect(there.isError, JSON.stringify(there)).toBeFalsy();
  expect((there.structuredContent as { url: string }).url).toBe(
    (status.structuredContent as { url: string }).url,
  );
});

test('spawned `plugsmith mcp` in a project whose emulator is not running: each tool says so and names `plugsmith dev`', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-mcp-idle-'));
  const configDir = await mkdtemp(join(tmpdir(), 'plugsmith-mcp-idle-cfg-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
  });
  await writeFile(join(dir, 'plugsmith.json'), MANIFEST);
  const client = await mcpOver(dir, {
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  });
  for (const name of ['emulator_status', 'list_deliveries', 'trigger_event']) {
    const args = name === 'trigger_event' ? { type: 'PLUGIN_INSTALLED' } : {};
    const answer = await call(client, name, args);
    expect(answer.isError, name).toBe(true);
    expect(JSON.stringify(answer.content)).toContain('plugsmith dev');
  }
});
