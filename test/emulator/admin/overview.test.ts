import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { answerProperly, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { deadUrl, call, emulator } from '../../kit/index.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// GET /_emulator/overview: what the dashboard's Overview shows, from the running emulator itself.

let emu: Emulator;
const servers: WebhookServer[] = [];

beforeAll(async () => {
  // Retries wait a minute: a delivery that failed once stays "retrying" while the test looks.
  emu = await emulator({
    seed: ROLES_SEED,
    delivery: { schedule: [60_000], jitter: 0 },
    llm: {
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'tiny-model',
      apiKey: 'sk-never-shown-anywhere',
    },
  });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function overview() {
  const res = await call(emu.url, 'GET', '/_emulator/overview', { headers: emu.adminHeaders });
  expect(res.status).toBe(200);
  return { data: res.body.data, text: JSON.stringify(res.body) };
}

describe('GET /_emulator/overview', () => {
  it('needs the admin credential', async () => {
    expect((await call(emu.url, 'GET', '/_emulator/overview')).status).toBe(401);
  });

  it('tells URLs, store, uptime, storage and the LLM backend without its key', async () => {
    const { data, text } = await overview();
    expect(data).toMatchObject({
      managementUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      storeId: emu.storeId,
      persistent: false,
      dataDir: null,
      storage: { backend: 'embedded', endpoint: null, bucket: null },
      llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'tiny-model', hasApiKey: true },
    });
    expect(Date.parse(data.startedAt)).toBeLessThanOrEqual(Date.now());
    expect(data.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain('sk-never-shown-anywhere');
    expect(text).not.toContain(emu.adminToken);
  });

  it('counts the records of every collection and the delivery queue as the store holds them', async () => {
    const good = await WebhookServer.start();
    // Answers challenges, then refuses every event: its PLUGIN_INSTALLED waits for a retry.
    const refusing = await WebhookServer.start((event, received) =>
      event.type === 'WEBHOOK_CHALLENGE' ? answerProperly(event, received) : { status: 500 },
    );
    servers.push(good, refusing);
    const before = (await overview()).data;
    const delivered = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: good.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
    });
    const retried = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: refusing.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
    });
    for (const plugin of [delivered, retried]) {
      const installed = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
        bearer: TOKENS.member,
        body: { name: 'h', pluginId: plugin.id, events: ['AGENT_MESSAGE_RECEIVED'], scopes: [] },
      });
      expect(installed.status).toBe(201);
    }
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: delivered.id });
    const waiting = await emu.waitForDelivery({
      type: 'PLUGIN_INSTALLED',
      pluginId: retried.id,
      status: 'pending',
    });
    for (let i = 0; i < 100 && emu.deliveries.get(waiting.id)!.attempts.length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    // A challenge to a closed port fails for good (challenges are never retried).
    const unreachable = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'Gone',
        type: 'EVENT_HANDLER',
        webhookUrl: `${await deadUrl()}/webhook`,
        events: [],
        scopes: [],
      },
    });
    await call(emu.url, 'POST', `/api/plugins/${unreachable.body.data.id}/verify-webhook`, {
      bearer: TOKENS.member,
    });

    const { data } = await overview();
    const { db } = emulatorInternals(emu);
    for (const [name, count] of Object.entries(data.counts))
      expect(count, name).toBe(db[name as keyof typeof db].size);
    expect(data.counts.plugins).toBe(before.counts.plugins + 3);
    expect(data.counts.instances).toBe(before.counts.instances + 2);
    const all = emu.deliveries.list();
    expect(data.deliveryQueue).toEqual({
      pending: all.filter((d) => d.status === 'pending' && d.attempts.length === 0).length,
      retrying: all.filter((d) => d.status === 'pending' && d.attempts.length > 0).length,
      failed: all.filter((d) => d.status === 'failed' || d.status === 'exhausted').length,
      delivered: all.filter((d) => d.status === 'delivered').length,
    });
    expect(data.deliveryQueue.retrying).toBe(before.deliveryQueue.retrying + 1);
    expect(data.deliveryQueue.failed).toBe(before.deliveryQueue.failed + 1);
    expect(data.deliveryQueue.delivered).toBeGreaterThanOrEqual(before.deliveryQueue.delivered + 3);
  });
});
