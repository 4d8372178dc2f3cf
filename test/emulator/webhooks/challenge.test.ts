import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { answerProperly, verifyReceived, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { deadUrl, call, emulator } from '../../kit/index.js';

let emu: Emulator;
let hook: WebhookServer;

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeoutMs: 300 } });
  hook = await WebhookServer.start();
});
afterAll(async () => {
  await hook.close();
});

async function plugin(webhookUrl: string | null) {
  const created = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
    bearer: TOKENS.member,
    body: {
      name: 'Challenged',
      type: 'EVENT_HANDLER',
      webhookUrl,
    },
  });
  expect(created.status).toBe(201);
  return created.body.data as { id: string; webhookSecret: string };
}

async function verify(pluginId: string) {
  return call(emu.url, 'POST', `/api/plugins/${pluginId}/verify-webhook`, {
    bearer: TOKENS.member,
  });
}

async function isVerified(pluginId: string) {
  return (await call(emu.url, 'GET', `/api/plugins/${pluginId}`, { bearer: TOKENS.member })).body
    .data.webhookUrlIsVerified;
}

describe('POST /api/plugins/:pluginId/verify-webhook', () => {
  it('verifies a webhook that echoes the challenge as JSON, with a signed WEBHOOK_CHALLENGE', async () => {
    const { id, webhookSecret } = await plugin(hook.url);
    const before = hook.received.length;
    const result = await verify(id);
    expect(result.status).toBe(200);
    expect(result.body.data).toMatchObject({ verified: true });
    expect(await isVerified(id)).toBe(true);
    const received = hook.received[before];
    const event = verifyReceived(received, webhookSecret);
    expect(event).toMatchObject({
      type: 'WEBHOOK_CHALLENGE',
      pluginId: id,
      pluginInstanceId: null,
      orgId: 'org_acme',
    });
    expect(typeof (event.data as { challenge: string }).challenge).toBe('string');
    expect(emu.deliveries.get(result.body.data.deliveryId)).toMatchObject({
      status: 'delivered',
      type: 'WEBHOOK_CHALLENGE',
    });
  });

  it('accepts a text/plain body that is exactly the value', async () => {
    const { id } = await plugin(hook.url);
    hook.responder = (event) => ({ body: (event.data as { challenge: string }).challenge });
    try {
      expect((await verify(id)).body.data).toMatchObject({ verified: true });
    } finally {
      hook.responder = answerProperly;
    }
  });

  it('refuses a wrong answer, sets webhookUrlIsVerified false and never retries', async () => {
    const { id } = await plugin(hook.url);
    expect((await verify(id)).body.data.verified).toBe(true);
    hook.responder = () => ({ status: 200, body: { challenge: 'not it' } });
    try {
      const before = hook.received.length;
      const result = await verify(id);
      expect(result.body.data.verified).toBe(false);
      expect(result.body.data.reason).toMatch(/not the value sent/);
      expect(await isVerified(id)).toBe(false);
      const delivery = emu.deliveries.get(result.body.data.deliveryId)!;
      expect(delivery).toMatchObject({ status: 'failed', retries: false, nextAttemptAt: null });
      expect(delivery.attempts).toHaveLength(1);
      expect(hook.received.length).toBe(before + 1);
    } finally {
      hook.responder = answerProperly;
    }
  });

  it('reports an error status as the reason', async () => {
    const { id } = await plugin(hook.url);
    hook.responder = () => ({ status: 500, body: { oops: true } });
    try {
      const result = await verify(id);
      expect(result.body.data).toMatchObject({
        verified: false,
        reason: expect.stringMatching(/HTTP 500/),
      });
      expect(emu.deliveries.get(result.body.data.deliveryId)!.attempts[0].responseBody).toBe(
        '{"oops":true}',
      );
    } finally {
      hook.responder = answerProperly;
    }
  });

  it('gives up on a webhook that never answers after the timeout', async () => {
    const silent = await WebhookServer.start(() => ({ hang: true }));
    try {
      const { id } = await plugin(silent.url);
      const result = await verify(id);
      expect(result.body.data).toMatchObject({
        verified: false,
        reason: 'no answer within 300 ms',
      });
      expect(await isVerified(id)).toBe(false);
    } finally {
      await silent.close();
    }
  });

  it('reports a refused connection', async () => {
    const { id } = await plugin(`${await deadUrl()}/webhook`);
    const result = await verify(id);
    expect(result.body.data.verified).toBe(false);
    expect(result.body.data.reason).toMatch(/connection refused/);
  });

  it('is a 400 naming the fix when the plugin has no webhookUrl', async () => {
    const { id } = await plugin(null);
    const result = await verify(id);
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/has no webhookUrl.*PUT \/api\/plugins\//);
  });

  it('needs MEMBER or OWNER', async () => {
    const { id } = await plugin(hook.url);
    expect(
      (await call(emu.url, 'POST', `/api/plugins/${id}/verify-webhook`, { bearer: TOKENS.viewer }))
        .status,
    ).toBe(403);
    expect(
      (
        await call(emu.url, 'POST', `/api/plugins/${id}/verify-webhook`, {
          bearer: TOKENS.outsider,
        })
      ).status,
    ).toBe(404);
    expect((await call(emu.url, 'POST', `/api/plugins/${id}/verify-webhook`)).status).toBe(401);
    expect(
      (await call(emu.url, 'POST', `/api/plugins/${id}/verify-webhook`, { bearer: TOKENS.owner }))
        .body.data.verified,
    ).toBe(true);
  });
});
