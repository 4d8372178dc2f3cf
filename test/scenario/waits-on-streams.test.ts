import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { expect, test } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { runScenario } from '../../src/emulator-entry.js';
import { own } from '../kit/index.js';
import { emulatorAndClient, servePlugin, type TestPlugin } from '../kit/plugin-server.js';

// An expectation that waits (a reply that comes a second after the plugin took the message) waits on
// the emulator's streams, the delivery stream and the conversation's events, and reads the lists
// again only when they tell of a change: not every 10 ms, which over that second made some hundred
// list requests. The runner's client sends through an undici agent that counts what it sends.

/** How long the plugin takes to reply after it answered the delivery: only time makes a reply late (a read every 10 ms made some hundred). */
const REPLY_AFTER_MS = 1000;

/** An undici agent that records each request it sends (`GET /conversations/conv_1/messages`, without the query). */
function countingAgent(): { dispatcher: Dispatcher; sent: string[] } {
  const sent: string[] = [];
  const dispatcher = new Agent().compose((dispatch) => (options, handler) => {
    sent.push(`${options.method} ${options.path.split('?')[0]}`);
    return dispatch(options, handler);
  });
  own(() => dispatcher.close());
  return { dispatcher, sent };
}

test('a reply that comes late is awaited on the streams: the lists are read a few times, not every 10 ms', async () => {
  const { emu, client } = await emulatorAndClient();
  const tokens = new Map<string, string>();
  const replies: Array<Promise<unknown>> = [];
  const plugin: TestPlugin = {
    name: 'slow echo',
    description: 'answers a second after it was told',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  };
  const pluginId = await servePlugin(emu, client, plugin, {
    PLUGIN_INSTALLED: (event) => {
      tokens.set(event.data.instance.id, event.data.accessToken);
    },
    AGENT_MESSAGE_RECEIVED: (event) => {
      const { agentId, conversationId, message } = event.data;
      const token = tokens.get(event.pluginInstanceId);
      // The delivery is answered at once; the reply follows later, as a plugin that calls a model writes it.
      const reply = sleep(REPLY_AFTER_MS).then(() =>
        fetch(`${emu.url}/api/agents/${agentId}/conversations/${conversationId}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content: `You said: ${message.content}`, isStreaming: false }),
        }),
      );
      replies.push(reply);
    },
  });
  const { dispatcher, sent } = countingAgent();
  const counted = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token!,
    apiKey: emu.apiKey!,
    adminToken: emu.adminToken,
    dispatcher,
  });
  own(() => counted.close());
  const result = await runScenario(
    {
      name: 'a late reply',
      steps: [
        { install: { on: 'agent', id: 'agent_nova' } },
        { id: 'conv', conversation: { agent: 'agent_nova' } },
        {
          message: { conversation: '${conv.id}', text: 'take your time' },
          expect: [
            { reply: { text: 'You said: take your time' } },
            { delivery: { type: 'AGENT_MESSAGE_RECEIVED' } },
          ],
        },
      ],
    },
    { client: counted, pluginId },
  );
  await Promise.all(replies);
  expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
  const count = (request: string) => sent.filter((s) => s === request).length;
  const conversationId = String(result.steps[1].result.id);
  // Each stream was followed, once by the step that waited on it.
  expect(count('GET /_emulator/deliveries/stream')).toBe(1);
  expect(count(`GET /conversations/${conversationId}/events`)).toBe(1);
  // Read when the wait began and after each change the streams told of: a handful, whatever the second held.
  expect(count('GET /_emulator/deliveries')).toBeLessThanOrEqual(5);
  expect(count(`GET /conversations/${conversationId}/messages`)).toBeLessThanOrEqual(5);
});
