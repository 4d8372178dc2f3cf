import { sampleData } from '../../../src/trigger/fixtures.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { until, call, adminCall, emulator } from '../../kit/index.js';
import { answerProperly, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';

// What the dashboard's Deliveries view needs of the admin API beyond list and resend: the delivery
// filters, a resend that answers at once, retry now, cancel retries, and a bulk resend of a filter.

let emu: Emulator;
let hook: WebhookServer;
let plugin: Awaited<ReturnType<typeof verifiedPlugin>>;
let instanceId: string;
/** What the receiver answers to AGENT_MESSAGE_RECEIVED: a status, or hang. */
let answer: { status: number } | 'hang' = { status: 200 };

beforeAll(async () => {
  // Retries a minute apart: a failed delivery stays pending for the test to act on.
  emu = await emulator({
    seed: ROLES_SEED,
    delivery: { timeoutMs: 1500, schedule: [60_000, 60_000, 60_000] },
  });
  hook = await WebhookServer.start((event, received) => {
    if (event.type !== 'AGENT_MESSAGE_RECEIVED') return answerProperly(event, received);
    return answer === 'hang' ? { hang: true } : { status: answer.status, body: { seen: event.id } };
  });
  plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    events: ['AGENT_MESSAGE_RECEIVED'],
  });
  const installed = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
    bearer: TOKENS.member,
    body: {
      name: 'h',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
    },
  });
  expect(installed.status).toBe(201);
  instanceId = installed.body.data.id;
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: instanceId });
});
afterAll(async () => {
  await hook.close();
});

function message() {
  return sampleData('AGENT_MESSAGE_RECEIVED', {
    agentId: 'agent_acme',
    messageId: 'msg_1',
    text: 'hi',
  });
}

async function emit(): Promise<{ id: string; status: string; attempts: unknown[] }> {
  const res = await adminCall(emu, 'POST', '/_emulator/events', {
    body: {
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: plugin.id,
      pluginInstanceId: instanceId,
      data: message(),
    },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** The delivery once `check` holds for it (polled through the admin API). */
/** The delivery once `check` holds for it (read through the admin API). */
function deliveryWhen(id: string, check: (d: { status: string; attempts: unknown[] }) => boolean) {
  return until(`delivery ${id}`, async () => {
    const delivery = (await adminCall(emu, 'GET', `/_emulator/deliveries/${id}`)).body.data;
    return check(delivery) && delivery;
  });
}

const ids = async (query: string) =>
  (
    (await adminCall(emu, 'GET', `/_emulator/deliveries?@limit=100&${query}`)).body.data as Array<{
      id: string;
    }>
  ).map((d) => d.id);

describe('admin delivery actions', () => {
  it('retry now runs a pending delivery at once; cancel ends its retries; neither applies to a finished delivery', async () => {
    answer = { status: 500 };
    const failing = await emit();
    expect(failing).toMatchObject({ status: 'pending' });
    expect(failing.attempts).toHaveLength(1);

    answer = { status: 200 };
    const retried = await adminCall(emu, 'POST', `/_emulator/deliveries/${failing.id}/retry`);
    expect(retried.status).toBe(200);
    const delivered = await deliveryWhen(failing.id, (d) => d.status === 'delivered');
    expect(delivered.attempts).toHaveLength(2);
    // Delivered now: nothing to retry or cancel.
    expect((await adminCall(emu, 'POST', `/_emulator/deliveries/${failing.id}/retry`)).status).toBe(
      409,
    );
    expect(
      (await adminCall(emu, 'POST', `/_emulator/deliveries/${failing.id}/cancel`)).status,
    ).toBe(409);

    answer = { status: 503 };
    const other = await emit();
    expect(other.status).toBe('pending');
    const cancelled = await adminCall(emu, 'POST', `/_emulator/deliveries/${other.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({
      id: other.id,
      status: 'failed',
      nextAttemptAt: null,
      cancelledAt: expect.any(String),
    });
    expect((await adminCall(emu, 'POST', `/_emulator/deliveries/${other.id}/retry`)).status).toBe(
      409,
    );
    expect((await adminCall(emu, 'POST', '/_emulator/deliveries/dlv_missing/cancel')).status).toBe(
      404,
    );
  });

  it('a resend with wait=false answers before the attempt; resending a pending delivery cancels its retries', async () => {
    answer = { status: 500 };
    const pending = await emit();
    expect(pending.status).toBe('pending');
    answer = 'hang';
    const resent = await adminCall(
      emu,
      'POST',
      `/_emulator/deliveries/${pending.id}/redeliver?wait=false`,
    );
    expect(resent.status).toBe(201);
    // Answered before the receiver (which hangs until the 1.5 s timeout) answered: no attempt yet.
    expect(resent.body.data).toMatchObject({
      status: 'pending',
      attempts: [],
      redeliveryOf: pending.id,
    });
    const original = (await adminCall(emu, 'GET', `/_emulator/deliveries/${pending.id}`)).body.data;
    expect(original).toMatchObject({
      status: 'failed',
      nextAttemptAt: null,
      cancelledAt: expect.any(String),
    });
    await deliveryWhen(resent.body.data.id, (d) => d.attempts.length === 1);
    expect(
      (await adminCall(emu, 'POST', `/_emulator/deliveries/${pending.id}/redeliver?wait=maybe`))
        .status,
    ).toBe(400);
  });

  it('filters by failed-at-least-once, last HTTP status, attempt count and time; bulk resends what a filter matches', async () => {
    answer = { status: 500 };
    const recovered = await emit();
    answer = { status: 200 };
    expect(
      (await adminCall(emu, 'POST', `/_emulator/deliveries/${recovered.id}/retry`)).status,
    ).toBe(200);
    await deliveryWhen(recovered.id, (d) => d.status === 'delivered');
    const clean = await emit();
    expect(clean.status).toBe('delivered');

    const failedOnce = await ids(`pluginId=${plugin.id}&@failedOnce=true`);
    expect(failedOnce).toContain(recovered.id);
    expect(failedOnce).not.toContain(clean.id);
    expect(await ids(`pluginId=${plugin.id}&@minAttempts=2&@maxAttempts=2`)).toContain(
      recovered.id,
    );
    expect(await ids(`pluginId=${plugin.id}&@maxAttempts=1`)).toContain(clean.id);
    expect(await ids(`pluginId=${plugin.id}&@httpStatus=2xx`)).toEqual(
      expect.arrayContaining([recovered.id, clean.id]),
    );
    expect(await ids(`pluginId=${plugin.id}&@httpStatus=503`)).not.toContain(clean.id);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await ids(`@since=${future}`)).toEqual([]);
    expect(await ids(`pluginId=${plugin.id}&@until=${future}`)).toContain(clean.id);
    for (const bad of [
      '@httpStatus=2x',
      '@minAttempts=-1',
      '@since=yesterday',
      '@failedOnce=yes',
      '@bogus=1',
    ]) {
      const res = await adminCall(emu, 'GET', `/_emulator/deliveries?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details.length, bad).toBeGreaterThan(0);
    }

    // Bulk: every delivery of the filter, resent as new deliveries of the same events.
    const query = `pluginId=${plugin.id}&type=AGENT_MESSAGE_RECEIVED&@failedOnce=true&@httpStatus=2xx`;
    const matched = await ids(query);
    expect(matched.length).toBeGreaterThan(0);
    const bulk = await adminCall(emu, 'POST', `/_emulator/deliveries/redeliver?${query}`);
    expect(bulk.status).toBe(200);
    expect(bulk.body.data).toMatchObject({ count: matched.length, skipped: 0 });
    const created = bulk.body.data.deliveries as string[];
    for (const id of created) {
      const d = (await adminCall(emu, 'GET', `/_emulator/deliveries/${id}`)).body.data;
      expect(matched).toContain(d.redeliveryOf);
    }
  });
});
