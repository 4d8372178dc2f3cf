import { call, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { startEventHandler, type EventHandler } from '../kit/event-handlers.js';

import { expectNoConsoleErrors, openDashboard } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';

// The Trigger page's default AGENT_MESSAGE_RECEIVED payload, sent to a real plugin that answers as
// the template does: it writes the character's reply into the conversation the event names, and a
// 404 there (a conversation that does not exist) makes it answer 500. The page must open a real
// conversation of the instance's agent, as `plugsmith trigger` does, so the first attempt is a 2xx.

let emu: Emulator;
let receiver: EventHandler;
let pluginId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  receiver = await startEventHandler('correct', emu.url);
  const created = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
    bearer: emu.token,
    body: {
      name: 'Replies to messages',
      type: 'EVENT_HANDLER',
      webhookUrl: receiver.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  pluginId = created.body.data.id;
  receiver.secret = created.body.data.webhookSecret;
  const verified = await call(emu.url, 'POST', `/api/plugins/${pluginId}/verify-webhook`, {
    bearer: emu.token,
  });
  expect(verified.body.data.verified, JSON.stringify(verified.body)).toBe(true);
  const agentId = emu.agentId!;
  const installed = await call(emu.url, 'POST', `/api/agents/${agentId}/plugins`, {
    bearer: emu.token,
    body: {
      name: 'On the agent',
      pluginId,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: installed.body.data.id });
});
afterAll(async () => {
  await receiver?.close();
});

describe('dashboard: Trigger AGENT_MESSAGE_RECEIVED with the default payload', () => {
  it('is about a real conversation, so the plugin writes its reply and answers 2xx on the first attempt', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'trigger');
    await page.getByLabel('Plugin', { exact: true }).selectOption(pluginId);
    await page.getByLabel('Event kind', { exact: true }).selectOption('AGENT_MESSAGE_RECEIVED');
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    await expect
      .poll(async () => JSON.parse(await payload.inputValue()).conversationId)
      .toMatch(/^(?!conv_sample$)/);
    const data = JSON.parse(await payload.inputValue());
    const conversation = emulatorInternals(emu).db.conversations.get(data.conversationId);
    expect(conversation, `conversation ${data.conversationId} exists`).toBeTruthy();
    expect(data.characterId).toBe(conversation?.characterId);
    expect(data.message.conversationId).toBe(data.conversationId);

    await page.getByRole('button', { name: 'Send event' }).click();
    await page.waitForURL(/#\/deliveries\/./);
    const deliveryId = decodeURIComponent(page.url().split('#/deliveries/')[1]);
    const delivery = emu.deliveries.get(deliveryId);
    expect(delivery?.type).toBe('AGENT_MESSAGE_RECEIVED');
    expect(delivery?.attempts[0]?.responseStatus, JSON.stringify(delivery?.attempts)).toBe(200);
    expect(delivery?.status).toBe('delivered');
    const written = [...emulatorInternals(emu).db.messages.values()].filter(
      (m) => m.conversationId === data.conversationId && m.sender === 'CHARACTER',
    );
    expect(written.length).toBe(1);
    expectNoConsoleErrors(consoleErrors);
  });
});
