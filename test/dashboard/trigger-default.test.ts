import { call, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { startEventHandler, type EventHandler } from '../kit/event-handlers.js';

import { expectNoConsoleErrors, openDashboard } from '../kit/browser.js';
import type { Page } from 'playwright-core';

// The Trigger page's defaults, sent to a real plugin that keeps the installation token of each
// PLUGIN_INSTALLED and writes its reply to a message with it (a 401 there makes it answer 500).
// Whatever the page sends by default, and its PLUGIN_INSTALLED, must leave the plugin with its
// real token: a later message is still answered 2xx.

let emu: Emulator;
let receiver: EventHandler;
let pluginId: string;
let instanceId: string;
let installDeliveryId: string;

beforeAll(async () => {
  emu = await emulator({ delivery: { timeoutMs: 3000 } });
  receiver = await startEventHandler('correct', emu.url);
  const created = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
    bearer: emu.token,
    body: {
      name: 'Keeps its token',
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
  instanceId = installed.body.data.id;
  const install = await emu.waitForDelivery({
    type: 'PLUGIN_INSTALLED',
    pluginInstanceId: instanceId,
  });
  installDeliveryId = install.id;
});
afterAll(async () => {
  await receiver?.close();
});

/** Sends what the form holds and returns the delivery the page opens. */
async function send(page: Page, button: string) {
  await page.getByRole('button', { name: button }).click();
  await page.waitForURL(/#\/deliveries\/./);
  const deliveryId = decodeURIComponent(page.url().split('#/deliveries/')[1]);
  const delivery = emu.deliveries.get(deliveryId);
  expect(delivery, `delivery ${deliveryId}`).toBeTruthy();
  return delivery!;
}

/** A message to the plugin through the Trigger page (a real conversation); its first attempt's status. */
async function messageStatus(page: Page): Promise<number | null> {
  await page.goto(new URL('#/trigger', page.url()).href);
  await page.getByLabel('Plugin', { exact: true }).selectOption(pluginId);
  await page.getByLabel('Event kind', { exact: true }).selectOption('AGENT_MESSAGE_RECEIVED');
  const payload = page.getByLabel("Payload (the event's data, JSON)");
  await expect
    .poll(async () => JSON.parse(await payload.inputValue()).conversationId)
    .toMatch(/^(?!conv_sample$)/);
  const delivery = await send(page, 'Send event');
  expect(delivery.type).toBe('AGENT_MESSAGE_RECEIVED');
  return delivery.attempts[0]?.responseStatus ?? null;
}

describe('dashboard: Trigger, what it sends by default', () => {
  it('opens on an event the plugin subscribes to, and the plugin still answers a later message 2xx', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'trigger');
    await page.getByLabel('Plugin', { exact: true }).selectOption(pluginId);
    const kind = page.getByLabel('Event kind', { exact: true });
    await expect.poll(() => kind.inputValue()).toBe('AGENT_MESSAGE_RECEIVED');
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    await expect
      .poll(async () => JSON.parse(await payload.inputValue()).conversationId ?? 'conv_sample')
      .toMatch(/^(?!conv_sample$)/);
    const first = await send(page, 'Send event');
    expect(first.type).toBe('AGENT_MESSAGE_RECEIVED');
    expect(first.attempts[0]?.responseStatus, JSON.stringify(first.attempts)).toBe(200);

    expect(await messageStatus(page)).toBe(200);
    expectNoConsoleErrors(consoleErrors);
  });

  it('sends PLUGIN_INSTALLED as a resend of the real install (same token), so later messages still succeed', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'trigger');
    await page.getByLabel('Plugin', { exact: true }).selectOption(pluginId);
    await page.getByLabel('Event kind', { exact: true }).selectOption('PLUGIN_INSTALLED');
    await page.getByLabel('Instance', { exact: true }).selectOption(instanceId);
    const original = emu.deliveries.get(installDeliveryId)!;
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    await expect
      .poll(async () => JSON.parse(await payload.inputValue()).accessToken)
      .toBe((original.event.data as { accessToken: string }).accessToken);
    expect(await payload.getAttribute('readonly')).not.toBeNull();

    const resent = await send(page, 'Resend the install');
    expect(resent.type).toBe('PLUGIN_INSTALLED');
    expect(resent.redeliveryOf).toBe(installDeliveryId);
    expect(resent.eventId).toBe(original.eventId);
    expect(resent.attempts[0]?.responseStatus).toBe(200);

    expect(await messageStatus(page)).toBe(200);
    expectNoConsoleErrors(consoleErrors);
  });
});
