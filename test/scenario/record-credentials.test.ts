import { expect, test } from 'vitest';
import { recordScenario } from '../../src/scenario/record.js';
import { until } from '../kit/index.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';

// A recording is meant to be committed, and it writes each message as it was sent: a key a person pasted into a chat
// while trying the plugin would be committed with it. The recording says so, naming the credential's kind only.

test('a recorded message holding a credential is named in the notes, by its kind, never its value', async () => {
  const { emu, client } = await emulatorAndClient();
  const { pluginId, handled } = await serveEchoPlugin(emu, client, {
    answer: (text) => `You said: ${text}`,
  });
  await client.agentPlugins.install('agent_nova', {
    name: 'probe',
    pluginId,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  const conversation = await client.messaging.conversations.create({ characterId: 'char_nova' });
  const key = emu.apiKey!;
  for (const content of ['hello', `my key is ${key}`]) {
    const before = handled();
    await client.messaging.messages.send(conversation.id, { content, type: 'TEXT' });
    await until('the plugin handled the message', () => handled() > before, { intervalMs: 5 });
  }
  const recording = await recordScenario(client, {
    pluginId,
    name: 'with a key',
    schema: null,
    manifestInstalls: [],
  });
  const note = recording.notes.find((n) => n.includes('shaped like a credential'));
  // The message and the plugin's reply (which echoes it) both hold it.
  expect(note).toBe(
    'the recording holds 2 texts shaped like a credential (psk_[redacted]): messages and payloads are written as they were sent, so check the file and put a made-up value in each before you commit it',
  );
  expect(recording.notes.join('\n')).not.toContain(key.slice(4, 12));

  // Without one, no such note.
  const clean = await recordScenario(client, {
    pluginId,
    name: 'clean',
    schema: null,
    manifestInstalls: [],
    since: new Date().toISOString(),
  });
  expect(clean.notes.join('\n')).not.toContain('credential');
});
