import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorOptions } from 'plugsmith/emulator';
import { FAULTS, startHarness, type Harness } from './harness.js';

// The emulator's default workspace: an agent and one of its characters.
const AGENT = 'agent_nova';
const CHARACTER = 'char_nova';

/** The plugin's tests, against an emulator started with `options`. */
function pluginTests(title: string, options: EmulatorOptions) {
  describe(title, () => {
    let h: Harness;
    let instanceId = '';

    beforeAll(async () => {
      h = await startHarness(options);
    });

    afterAll(async () => {
      await h?.close();
    });

    it('keeps its installation token in an owner-only file', async () => {
      const { plugin: manifest } = h.manifest;
      const instance = await h.client.agentPlugins.install(AGENT, {
        name: 'replies',
        pluginId: h.pluginId,
        events: manifest.events,
        scopes: manifest.scopes,
      });
      instanceId = instance.id;
      await h.emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: h.pluginId });

      const installation = await h.plugin.tokens.get(instanceId);
      expect(installation).toMatchObject({ instanceId, entityType: 'AGENT', entityId: AGENT });
      expect(installation?.accessToken).toBeTruthy();
      expect((await stat(h.plugin.tokens.path)).mode & 0o777).toBe(0o600);
    });

    it("answers a user's message as the character", async () => {
      const conversation = await h.client.messaging.conversations.create({
        characterId: CHARACTER,
      });
      const sent = await h.client.messaging.messages.send(conversation.id, { content: 'hello' });
      const delivery = await h.emu.waitForDelivery({
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: h.pluginId,
      });
      expect(delivery.pluginInstanceId).toBe(instanceId);

      const replyId = h.plugin.replies.get(sent.id);
      expect(replyId).toBeTruthy();
      const { data: messages } = await h.client.messaging.messages.list(conversation.id, {
        after: sent.id,
      });
      expect(messages).toContainEqual(
        expect.objectContaining({
          id: replyId,
          sender: 'CHARACTER',
          content: 'You said: hello',
          isStreaming: false,
        }),
      );
      // Answered once, even when the platform sends the message again (retries, duplicates).
      expect(messages.filter((m) => m.content === 'You said: hello')).toHaveLength(1);
    });
  });
}

pluginTests('{{name}}', {});
// The same tests under the faults the platform produces (duplicates, delays, reordering, retries).
pluginTests('{{name}} under faults', FAULTS);
