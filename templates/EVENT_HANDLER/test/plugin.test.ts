import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

// The emulator's default workspace: an agent and one of its characters.
const AGENT = 'agent_nova';
const CHARACTER = 'char_nova';

let h: Harness;
let instanceId = '';

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('{{name}}', () => {
  it('keeps its installation token in an owner-only file', async () => {
    const { plugin: manifest } = h.manifest;
    const instance = await h.client.agentPlugins.attach(AGENT, { name: 'replies', pluginId: h.pluginId, events: manifest.events, scopes: manifest.scopes });
    instanceId = instance.id;
    await h.emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: h.pluginId });

    const installation = await h.plugin.tokens.get(instanceId);
    expect(installation).toMatchObject({ instanceId, entityType: 'AGENT', entityId: AGENT });
    expect(installation?.accessToken).toBeTruthy();
    expect((await stat(h.plugin.tokens.path)).mode & 0o777).toBe(0o600);
  });

  it("answers a user's message as the character", async () => {
    const conversation = await h.client.messaging.conversations.create({ characterId: CHARACTER });
    const sent = await h.client.messaging.messages.send(conversation.id, { content: 'hello' });
    const delivery = await h.emu.waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', pluginId: h.pluginId });
    expect(delivery.pluginInstanceId).toBe(instanceId);

    const replyId = h.plugin.replies.get(sent.id);
    expect(replyId).toBeTruthy();
    const { data: messages } = await h.client.messaging.messages.list(conversation.id, { after: sent.id });
    expect(messages).toContainEqual(expect.objectContaining({ id: replyId, sender: 'CHARACTER', content: 'You said: hello', isStreaming: false }));
  });
});
