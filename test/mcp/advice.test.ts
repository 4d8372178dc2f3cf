import { expect, test } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { inToolTerms } from '../../src/mcp/advice.js';
import { answerChallenge, emulator, receiver } from '../kit/index.js';
import { call, connectTo, mcpClient, textOf } from './in-memory.js';

// MCP errors and summaries name MCP tools, not the CLI commands the shared services name.

test.each([
  [
    'delivery dlv_1 is delivered: only a pending delivery can be cancelled; send its event again with `plugsmith logs redeliver dlv_1`',
    'delivery dlv_1 is delivered: only a pending delivery can be cancelled; send its event again with resend_delivery with deliveryId "dlv_1"',
  ],
  [
    'the webhook did not accept the event (`plugsmith logs dlv_2` shows it whole; `plugsmith logs redeliver dlv_2` sends it again)',
    'the webhook did not accept the event (get_delivery with deliveryId "dlv_2" shows it whole; resend_delivery with deliveryId "dlv_2" sends it again)',
  ],
  [
    "no delivery dlv_3 in the emulator's log: `plugsmith logs` lists the deliveries (the id is the last column)",
    "no delivery dlv_3 in the emulator's log: list_deliveries lists the deliveries",
  ],
  [
    'timed out (`plugsmith logs --follow` shows the attempts as they end)',
    'timed out (follow_deliveries shows the attempts as they end)',
  ],
  [
    'plugin plg_1 has no instance on an agent: run `plugsmith trigger PLUGIN_INSTALLED --plugin plg_1` (installs a sample one)',
    'plugin plg_1 has no instance on an agent: run trigger_event with type "PLUGIN_INSTALLED" and pluginId "plg_1" (installs a sample one)',
  ],
  [
    'verify the webhook again with `plugsmith plugins verify plg_2`',
    'verify the webhook again with trigger_event with type "WEBHOOK_CHALLENGE" and pluginId "plg_2"',
  ],
  [
    'record one with `plugsmith scenario record -o scenarios/first.json`, run it with `plugsmith scenario run`, chat with `plugsmith chat`, check with `plugsmith check`',
    'record one with record_scenario (with output to write a file), run it with run_scenarios, chat with send_chat_message, check with run_check',
  ],
  // Commands no tool does stay as they are.
  [
    'start it with `plugsmith dev` in the project folder; set webhookUrl and run `plugsmith deploy`',
    'start it with `plugsmith dev` in the project folder; set webhookUrl and run `plugsmith deploy`',
  ],
])('%s', (cli, mcp) => {
  expect(inToolTerms(cli)).toBe(mcp);
});

test('errors of the shared services reach the agent naming tools: a cancel of a delivered delivery, a trigger without an instance', async () => {
  const emu = await emulator();
  const hook = await receiver(answerChallenge);
  const raw = createClient({ baseUrl: emu.url, token: emu.token!, adminToken: emu.adminToken });
  const make = (name: string) =>
    raw.plugins.createInOrg(emu.orgId!, {
      name,
      description: 'answers everything',
      type: 'EVENT_HANDLER',
      webhookUrl: hook.webhookUrl,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    });
  const installed = await make('installed plugin');
  await raw.plugins.verifyWebhook(installed.id);
  await raw.agentPlugins.install('agent_nova', {
    name: 'on nova',
    pluginId: installed.id,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  const lonely = await make('plugin without an instance');
  await raw.plugins.verifyWebhook(lonely.id);
  await raw.close();
  const client = await mcpClient(connectTo(emu));

  // The install's delivery, once its attempt is answered.
  let id = '';
  while (!id) {
    const listed = await call(client, 'list_deliveries', {
      pluginId: installed.id,
      type: 'PLUGIN_INSTALLED',
    });
    const rows = (listed.structuredContent as { deliveries: Array<{ id: string; status: string }> })
      .deliveries;
    id = rows.find((d) => d.status === 'delivered')?.id ?? '';
  }
  const cancelled = await call(client, 'cancel_retries', { deliveryId: id });
  expect(cancelled.isError).toBe(true);
  expect(textOf(cancelled)).toContain(`resend_delivery with deliveryId "${id}"`);
  expect(textOf(cancelled)).not.toContain('plugsmith logs');

  const noInstance = await call(client, 'trigger_event', {
    type: 'AGENT_MESSAGE_RECEIVED',
    pluginId: lonely.id,
  });
  expect(noInstance.isError).toBe(true);
  expect(textOf(noInstance)).toContain(
    `trigger_event with type "PLUGIN_INSTALLED" and pluginId "${lonely.id}"`,
  );
  expect(textOf(noInstance)).not.toContain('plugsmith trigger');
});

test('the debug_last_failed_delivery prompt starts from the plugin output and ends with a scenario that reproduces the failure', async () => {
  const client = await mcpClient(connectTo(await emulator()));
  const prompt = await client.getPrompt({
    name: 'debug_last_failed_delivery',
    arguments: { pluginId: 'plg_1' },
  });
  const text = (prompt.messages[0].content as { text: string }).text;
  const steps = text.split('\n').slice(1);
  expect(steps[0]).toContain(
    'list_deliveries with failed: true and limit: 1 and pluginId: "plg_1"',
  );
  // The plugin's own output comes first, before the status and the answer.
  expect(steps[1]).toMatch(/^2\. Start from the plugin's own output: call get_delivery/);
  expect(steps[1]).toContain('untrusted.pluginOutput');
  expect(steps[1]).toContain(
    'follow_plugin_output with cursor set to the attempt\'s startedAt and pluginId: "plg_1"',
  );
  expect(text.indexOf('pluginOutput')).toBeLessThan(text.indexOf('responseStatus'));
  const last = steps.at(-1)!;
  expect(last).toMatch(/^\d\. End with a scenario that reproduces the failure/);
  expect(last).toContain('record_scenario with pluginId: "plg_1"');
  expect(last).toContain('run_scenarios');
  // No CLI command where a tool does the work.
  expect(text).not.toMatch(/`plugsmith (logs|trigger|check|scenario|chat)/);
});
