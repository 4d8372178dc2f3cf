import { describe, expect, test } from 'vitest';
import { call } from './index.js';
import { WebhookServer } from './webhook-server.js';

const event = (type: string) => ({ id: `evt_${type}`, type, data: {} });

describe("the kit's webhook server", () => {
  test('waitFor resolves with the deliveries of a kind once enough have arrived', async () => {
    const hook = await WebhookServer.start();
    const waiting = hook.waitFor(2, 'PLUGIN_INSTALLED');
    for (const type of ['PLUGIN_INSTALLED', 'AGENT_MESSAGE_RECEIVED', 'PLUGIN_INSTALLED'])
      expect((await call(hook.url, 'POST', '', { body: event(type) })).status).toBe(200);
    const arrived = await waiting;
    expect(arrived.map((r) => r.event.type)).toEqual(['PLUGIN_INSTALLED', 'PLUGIN_INSTALLED']);
  });

  test('waitFor gives up at its bound, naming what it waited for and what did arrive', async () => {
    const hook = await WebhookServer.start();
    await call(hook.url, 'POST', '', { body: event('AGENT_MESSAGE_RECEIVED') });
    await expect(hook.waitFor(1, 'PLUGIN_INSTALLED', { timeoutMs: 100 })).rejects.toThrow(
      `timed out after 100 ms waiting for 1 PLUGIN_INSTALLED at the webhook ${hook.url}`,
    );
    await expect(hook.waitFor(2, undefined, { timeoutMs: 100 })).rejects.toThrow(
      /waiting for 2 requests at the webhook .*\nreceived: AGENT_MESSAGE_RECEIVED$/,
    );
  });
});
