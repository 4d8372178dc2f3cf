import { call, emulator } from '../../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Emulator } from '../../../emulator/index.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { WebhookServer, type Received } from '../../kit/webhook-server.js';

let emu: Emulator;
let hook: WebhookServer;

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeoutMs: 2000 } });
  hook = await WebhookServer.start();
});
afterAll(async () => {
  await hook.close();
});

async function newPlugin(): Promise<{ id: string; webhookSecret: string }> {
  const created = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
    bearer: TOKENS.member,
    body: {
      name: 'Rotated',
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
    },
  });
  expect(created.status).toBe(201);
  return created.body.data;
}

/** Sends a WEBHOOK_CHALLENGE (a real, signed delivery) and returns what the webhook received. */
async function deliver(pluginId: string): Promise<Received> {
  const before = hook.received.length;
  const verified = await call(emu.url, 'POST', `/api/plugins/${pluginId}/verify-webhook`, {
    bearer: TOKENS.member,
  });
  expect(verified.body.data.verified).toBe(true);
  return hook.received[before];
}

function verifiesWith(received: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

async function rotate(pluginId: string, body: unknown, token: string = TOKENS.member) {
  return call(emu.url, 'POST', `/api/plugins/${pluginId}/webhook-secret/rotate`, {
    bearer: token,
    body: body,
  });
}

describe('POST /api/plugins/:pluginId/webhook-secret/rotate', () => {
  it('signs with both secrets during the grace period and with the new one alone after it (checked with standardwebhooks)', async () => {
    const plugin = await newPlugin();
    const first = await deliver(plugin.id);
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiesWith(first, plugin.webhookSecret)).toBe(true);

    const rotated = await rotate(plugin.id, { graceSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const { webhookSecret: second, previousSecretExpiresAt } = rotated.body.data;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(plugin.webhookSecret);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3500_000);

    const during = await deliver(plugin.id);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(during, plugin.webhookSecret)).toBe(true);
    expect(verifiesWith(during, second)).toBe(true);

    // A short grace: the previous secret (the second) signs until it ends, then only the third does.
    const third = (await rotate(plugin.id, { graceSeconds: 0.3 })).body.data;
    const early = await deliver(plugin.id);
    expect(verifiesWith(early, second)).toBe(true);
    expect(verifiesWith(early, third.webhookSecret)).toBe(true);
    // The first secret was dropped by the second rotation: only one previous secret is kept.
    expect(verifiesWith(early, plugin.webhookSecret)).toBe(false);
    const wait = Date.parse(third.previousSecretExpiresAt) - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait + 20));
    const after = await deliver(plugin.id);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifiesWith(after, third.webhookSecret)).toBe(true);
    expect(verifiesWith(after, second)).toBe(false);
  });

  it('with graceSeconds 0 stops signing with the previous secret at once', async () => {
    const plugin = await newPlugin();
    const rotated = (await rotate(plugin.id, { graceSeconds: 0 })).body.data;
    expect(rotated.previousSecretExpiresAt).toBeNull();
    const received = await deliver(plugin.id);
    expect(verifiesWith(received, rotated.webhookSecret)).toBe(true);
    expect(verifiesWith(received, plugin.webhookSecret)).toBe(false);
  });

  it('defaults to a 24 h grace with no body, and never shows the previous secret', async () => {
    const plugin = await newPlugin();
    const rotated = await rotate(plugin.id, undefined);
    expect(rotated.status).toBe(200);
    expect(
      Math.round((Date.parse(rotated.body.data.previousSecretExpiresAt) - Date.now()) / 3600_000),
    ).toBe(24);
    const shown = await call(emu.url, 'GET', `/api/plugins/${plugin.id}`, {
      bearer: TOKENS.member,
    });
    expect(shown.body.data.webhookSecret).toBe(rotated.body.data.webhookSecret);
    expect(JSON.stringify(shown.body)).not.toContain(plugin.webhookSecret);
    expect(shown.body.data).not.toHaveProperty('previousWebhookSecret');
    const updated = await call(emu.url, 'PUT', `/api/plugins/${plugin.id}`, {
      bearer: TOKENS.member,
      body: {
        description: 'changed',
      },
    });
    expect(JSON.stringify(updated.body)).not.toContain(plugin.webhookSecret);
    const listed = await call(emu.url, 'GET', '/api/orgs/org_acme/plugins', {
      bearer: TOKENS.member,
    });
    expect(JSON.stringify(listed.body)).not.toContain(plugin.webhookSecret);
  });

  it('is for MEMBERs and OWNERs of the owning org only, and refuses a bad grace with details', async () => {
    const plugin = await newPlugin();
    expect((await rotate(plugin.id, {}, TOKENS.viewer)).status).toBe(403);
    expect((await rotate(plugin.id, {}, TOKENS.outsider)).status).toBe(404);
    expect(
      (await call(emu.url, 'POST', `/api/plugins/${plugin.id}/webhook-secret/rotate`, { body: {} }))
        .status,
    ).toBe(401);
    expect((await rotate('plg_missing', {})).status).toBe(404);
    for (const body of [
      { graceSeconds: -1 },
      { graceSeconds: '1h' },
      { graceSeconds: 31 * 24 * 3600 },
      { grace: 5 },
    ]) {
      const refused = await rotate(plugin.id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.error).toBe('VALIDATION_ERROR');
      expect(refused.body.error.details.length).toBeGreaterThan(0);
    }
    // Nothing changed through the refusals.
    const shown = await call(emu.url, 'GET', `/api/plugins/${plugin.id}`, {
      bearer: TOKENS.member,
    });
    expect(shown.body.data.webhookSecret).toBe(plugin.webhookSecret);
    expect((await rotate(plugin.id, {}, TOKENS.owner)).status).toBe(200);
  });
});
