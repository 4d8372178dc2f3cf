// Issue 37's first speed target: a 10-step scenario (a conversation, then nine messages, each with
// reply, replies and delivery expectations) run by runScenario against an in-memory emulator and a
// plugin that answers like the EVENT_HANDLER template (it writes "You said: …" with its installation
// token before answering), both in this process. The measure is the run's time beyond the plugin's
// own (the sum of its delivery attempts' durations): median of 5 runs. Target: under 1,000 ms.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, root } from './lib.js';

const load = (path) => import(pathToFileURL(join(root, path)).href);

export default async function scenario({ quick }) {
  const { startEmulator, runScenario } = await load('dist/emulator/index.js');
  const { createClient } = await load('dist/client/index.js');
  const { createWebhookHandler } = await load('dist/webhooks/index.js');
  const emu = await startEmulator({ log: () => undefined });
  const client = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token,
    apiKey: emu.apiKey,
  });
  const tokens = new Map();
  const answered = new Set();
  let secret = '';
  const server = createServer((req, res) =>
    createWebhookHandler({
      secret,
      on: {
        PLUGIN_INSTALLED: (event) => tokens.set(event.data.instance.id, event.data.accessToken),
        AGENT_MESSAGE_RECEIVED: async (event) => {
          const { agentId, conversationId, message } = event.data;
          if (answered.has(message.id)) return;
          answered.add(message.id);
          await fetch(`${emu.url}/api/agents/${agentId}/conversations/${conversationId}/messages`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${tokens.get(event.pluginInstanceId)}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ content: `You said: ${message.content}`, isStreaming: false }),
          });
        },
      },
    })(req, res),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const plugin = await client.plugins.create({
      orgId: emu.orgId,
      name: 'bench echo',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      webhookUrl: `http://127.0.0.1:${server.address().port}/webhook`,
    });
    secret = plugin.webhookSecret;
    await client.plugins.verifyWebhook(plugin.id);
    await client.agentPlugins.install('agent_nova', {
      name: 'bench',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    });
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    const steps = [{ id: 'conv', conversation: {} }];
    for (let i = 0; i < 9; i++)
      steps.push({
        message: { conversation: '${conv.id}', text: `message ${i}` },
        expect: [
          { reply: { text: `You said: message ${i}` } },
          { replies: { count: 1 } },
          { delivery: { status: '2xx', retried: false } },
        ],
      });
    const beyond = [];
    const totals = [];
    for (let run = 0; run < (quick ? 3 : 5); run++) {
      const result = await runScenario(
        { name: `bench ${run}`, steps },
        { emulator: emu, pluginId: plugin.id },
      );
      if (!result.ok) throw new Error(`the bench scenario failed: ${JSON.stringify(result.steps)}`);
      const page = await client
        .withOptions({ adminToken: emu.adminToken })
        .emulator.deliveries.list({
          pluginId: plugin.id,
          filters: { scenario: `bench ${run}` },
          limit: 100,
        });
      const pluginMs = page.data.reduce(
        (sum, d) => sum + d.attempts.reduce((s, a) => s + a.durationMs, 0),
        0,
      );
      totals.push(result.durationMs);
      beyond.push(result.durationMs - pluginMs);
    }
    return [
      { name: '10-step scenario, whole run', ms: median(totals) },
      {
        name: '10-step scenario beyond the plugin',
        ms: median(beyond),
        target: '< 1000 ms',
      },
    ];
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await client.close();
    await emu.close();
  }
}
