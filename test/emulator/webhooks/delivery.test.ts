import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { Emulator } from '../../../emulator/index.js';
import type { DeliveryAttemptNotice as AttemptNotice } from '#contract';
import {
  answerProperly,
  verifiedPlugin,
  verifyReceived,
  WebhookServer,
  type Responder,
} from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { deadUrl, call, adminCall, emulator } from '../../kit/index.js';
import { emulatorInternals } from '../../../emulator/internals.js';

let emu: Emulator;
const servers: WebhookServer[] = [];

beforeAll(async () => {
  // Default schedule (1 s, 5 s, 30 s…) shrunk a hundredfold: first retry after ~10 ms.
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeoutMs: 2000, timeScale: 0.01 } });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(responder?: Responder) {
  const s = await WebhookServer.start(responder);
  servers.push(s);
  return s;
}

/** An EVENT_HANDLER plugin on its own webhook server, installed on agent_acme. */
async function handlerOnAgent(
  options: {
    events?: string[];
    instanceEvents?: string[];
    mode?: 'SYNC' | 'ASYNC';
    responder?: Responder;
  } = {},
) {
  const hook = await server();
  const events = options.events ?? ['AGENT_MESSAGE_RECEIVED'];
  const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    events,
  });
  if (options.responder) hook.responder = options.responder;
  const installed = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
    bearer: TOKENS.member,
    body: {
      name: 'handler',
      pluginId: plugin.id,
      events: options.instanceEvents ?? events,
      scopes: [],
      ...(options.mode ? { eventDispatchMode: options.mode } : {}),
    },
  });
  expect(installed.status).toBe(201);
  return { hook, plugin, instance: installed.body.data as { id: string } };
}

/** Answers `failures` times with `failure`, then properly. */
function failingFirst(
  failures: number,
  failure: { status: number; headers?: Record<string, string> },
): Responder {
  let seen = 0;
  return (event, received) =>
    event.type === 'WEBHOOK_CHALLENGE' || seen++ >= failures
      ? answerProperly(event, received)
      : { ...failure, body: { error: 'not now' } };
}

describe('webhook delivery', () => {
  it('retries a 500 with the same webhook-id and a fresh signature each time', async () => {
    const { hook, plugin, instance } = await handlerOnAgent({
      responder: failingFirst(1, { status: 500 }),
    });
    const delivery = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    expect(delivery.attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
    expect(delivery.attempts[0]).toMatchObject({
      error: 'the webhook answered HTTP 500',
      responseBody: '{"error":"not now"}',
    });
    expect(delivery.attempts[0].nextAttemptAt).not.toBeNull();
    expect(delivery.pluginInstanceId).toBe(instance.id);
    const received = hook.ofType('PLUGIN_INSTALLED');
    expect(received).toHaveLength(2);
    expect(received[0].headers['webhook-id']).toBe(delivery.eventId);
    expect(received[1].headers['webhook-id']).toBe(delivery.eventId);
    for (const r of received)
      expect(verifyReceived(r, plugin.webhookSecret).id).toBe(delivery.eventId);
    // What went over the wire verifies with a third-party Standard Webhooks library too.
    for (const r of received)
      expect(
        new Webhook(plugin.webhookSecret).verify(r.body, r.headers as Record<string, string>),
      ).toMatchObject({ id: delivery.eventId, type: 'PLUGIN_INSTALLED' });
    expect(received.map((r) => r.headers['webhook-timestamp'])).toEqual(
      delivery.attempts.map((a) => a.webhookTimestamp),
    );
  });

  it('honours Retry-After (scaled like the schedule)', async () => {
    // Retry-After: 30 s at a hundredth of the time is 300 ms, against ~10 ms from the schedule.
    const { hook, plugin } = await handlerOnAgent({
      responder: failingFirst(1, { status: 503, headers: { 'retry-after': '30' } }),
    });
    const delivery = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    const [first, second] = hook.ofType('PLUGIN_INSTALLED');
    expect(second.at - first.at).toBeGreaterThanOrEqual(250);
    const planned =
      Date.parse(delivery.attempts[0].nextAttemptAt!) - Date.parse(delivery.attempts[0].startedAt);
    expect(planned).toBeGreaterThanOrEqual(290);
    expect(planned).toBeLessThan(1000);
  });

  it('redelivers a logged delivery with the same event id', async () => {
    const { hook, plugin } = await handlerOnAgent();
    const delivery = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    const again = await adminCall(emu, 'POST', `/_emulator/deliveries/${delivery.id}/redeliver`);
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({
      eventId: delivery.eventId,
      redeliveryOf: delivery.id,
      status: 'delivered',
    });
    expect(again.body.data.id).not.toBe(delivery.id);
    const received = hook.ofType('PLUGIN_INSTALLED');
    expect(received).toHaveLength(2);
    expect(received[1].body).toBe(received[0].body);
    expect(received[1].headers['webhook-id']).toBe(delivery.eventId);
    expect((await adminCall(emu, 'POST', '/_emulator/deliveries/dlv_nope/redeliver')).status).toBe(
      404,
    );
  });

  it('sends only the events the plugin and the instance subscribe to', async () => {
    const both = await handlerOnAgent({ events: ['AGENT_MESSAGE_RECEIVED'] });
    const pluginOnly = await handlerOnAgent({
      events: ['AGENT_MESSAGE_RECEIVED'],
      instanceEvents: [],
    });
    const neither = await handlerOnAgent({ events: [] });
    const data = {
      agentId: 'agent_acme',
      characterId: 'char_x',
      conversationId: 'conv_x',
      message: { id: 'msg_1', content: 'hi' },
    };
    const sent = await emulatorInternals(emu).dispatcher.emitToEntity(
      'AGENT',
      'agent_acme',
      'AGENT_MESSAGE_RECEIVED',
      data,
    );
    expect(sent.map((d) => d.pluginId)).toContain(both.plugin.id);
    expect(sent.map((d) => d.pluginId)).not.toContain(pluginOnly.plugin.id);
    expect(sent.map((d) => d.pluginId)).not.toContain(neither.plugin.id);
    const delivered = await emu.waitForDelivery({
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: both.plugin.id,
    });
    expect(delivered.event).toMatchObject({
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginInstanceId: both.instance.id,
      orgId: 'org_acme',
      data,
    });
    expect(
      await emulatorInternals(emu).dispatcher.emitToEntity(
        'AGENT',
        'agent_acme',
        'REPOSITORY_FILE_ADDED',
        {},
      ),
    ).toEqual([]);
    // Lifecycle events went to all three regardless of their events.
    for (const one of [both, pluginOnly, neither]) await one.hook.waitFor(1, 'PLUGIN_INSTALLED');
    expect(pluginOnly.hook.ofType('AGENT_MESSAGE_RECEIVED')).toHaveLength(0);
    expect(neither.hook.ofType('AGENT_MESSAGE_RECEIVED')).toHaveLength(0);
  });

  it('never lets a hanging or refusing target delay other deliveries', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hanging = await handlerOnAgent();
    hanging.hook.responder = async (event, received) => {
      await released;
      return answerProperly(event, received);
    };
    const refusing = await handlerOnAgent();
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: refusing.plugin.id });
    await emulatorInternals(emu).db.plugins.put({
      ...emulatorInternals(emu).db.plugins.get(refusing.plugin.id)!,
      webhookUrl: `${await deadUrl()}/webhook`,
    });
    const healthy = await handlerOnAgent();
    try {
      const data = { agentId: 'agent_acme', characterId: 'c', conversationId: 'v', message: {} };
      const instances = [hanging, refusing, healthy].map(
        (h) => emulatorInternals(emu).db.instances.get(h.instance.id)!,
      );
      const refusedAttempt = new Promise<AttemptNotice>((resolve) =>
        emulatorInternals(emu).dispatcher.onAttempt(
          (n) =>
            n.delivery.pluginId === refusing.plugin.id &&
            n.delivery.type === 'AGENT_MESSAGE_RECEIVED' &&
            resolve(n),
        ),
      );
      // ASYNC: the caller gets the deliveries back while the hanging target still holds its request.
      const sent = await emulatorInternals(emu).dispatcher.emitForInstances(
        'AGENT_MESSAGE_RECEIVED',
        instances,
        data,
      );
      expect(sent.map((d) => d.status)).toEqual(['pending', 'pending', 'pending']);
      await emu.waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', pluginId: healthy.plugin.id });
      const refused = await refusedAttempt;
      expect(refused.attempt.error).toMatch(/connection refused/);
      expect(refused.delivery.status).toBe('pending'); // to be retried
      await hanging.hook.waitFor(1, 'AGENT_MESSAGE_RECEIVED');
      const stuck = emu.deliveries.list({
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: hanging.plugin.id,
        status: 'any',
      });
      expect(stuck).toMatchObject([{ status: 'pending', attempts: [] }]);
    } finally {
      release();
    }
    const late = await emu.waitForDelivery({
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: hanging.plugin.id,
    });
    expect(late.attempts).toHaveLength(1);
  });

  it('waits for the first attempt of a SYNC instance, not of an ASYNC one', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const sync = await handlerOnAgent({ mode: 'SYNC' });
    const slowAsync = await handlerOnAgent();
    slowAsync.hook.responder = async (event, received) => {
      await released;
      return answerProperly(event, received);
    };
    const instances = [sync, slowAsync].map(
      (h) => emulatorInternals(emu).db.instances.get(h.instance.id)!,
    );
    try {
      const sent = await emulatorInternals(emu).dispatcher.emitForInstances(
        'AGENT_MESSAGE_RECEIVED',
        instances,
        {
          agentId: 'agent_acme',
        },
      );
      expect(sent.find((d) => d.pluginId === sync.plugin.id)).toMatchObject({
        status: 'delivered',
        mode: 'SYNC',
      });
      expect(sent.find((d) => d.pluginId === slowAsync.plugin.id)).toMatchObject({
        status: 'pending',
        mode: 'ASYNC',
        attempts: [],
      });
    } finally {
      release();
    }
    await emu.waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', pluginId: slowAsync.plugin.id });
  });
});

describe('webhook delivery through the API', () => {
  it('an ASYNC install answers while its webhook still holds PLUGIN_INSTALLED; a SYNC one after the first attempt', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hook = await server();
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
    });
    hook.responder = async (event, received) => {
      if (event.type === 'PLUGIN_INSTALLED' && event.data.instance.eventDispatchMode === 'ASYNC')
        await released;
      if (event.type === 'PLUGIN_INSTALLED' && event.data.instance.eventDispatchMode === 'SYNC')
        return { status: 503 };
      return answerProperly(event, received);
    };
    const body = { name: 'h', pluginId: plugin.id, events: [], scopes: [] };
    try {
      // Had the call waited for its delivery, it could not answer before the webhook is released.
      const quick = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
        bearer: TOKENS.member,
        body: {
          ...body,
          eventDispatchMode: 'ASYNC',
        },
      });
      expect(quick.status).toBe(201);
      await hook.waitFor(1, 'PLUGIN_INSTALLED');
      expect(
        emu.deliveries.list({
          type: 'PLUGIN_INSTALLED',
          pluginInstanceId: quick.body.data.id,
          status: 'any',
        }),
      ).toMatchObject([{ status: 'pending', attempts: [] }]);
    } finally {
      release();
    }
    const waited = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        ...body,
        eventDispatchMode: 'SYNC',
      },
    });
    expect(waited.status).toBe(201);
    // The answer came after the first attempt (a 503, to be retried) was logged.
    const [sync] = emu.deliveries.list({
      type: 'PLUGIN_INSTALLED',
      pluginInstanceId: waited.body.data.id,
      status: 'any',
    });
    expect(sync.attempts.map((a) => a.responseStatus)).toEqual([503]);
  });

  it('retries a delivery whose webhook does not answer within the timeout', async () => {
    let calls = 0;
    const { plugin } = await handlerOnAgent({
      responder: (event, received) =>
        event.type === 'PLUGIN_INSTALLED' && calls++ === 0
          ? { hang: true }
          : answerProperly(event, received),
    });
    const delivery = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    expect(delivery.attempts.map((a) => [a.responseStatus, a.error])).toEqual([
      [null, 'no answer within 2000 ms'],
      [200, null],
    ]);
  });
});

describe('the delivery log', () => {
  it('lists with the shared query system, shows one delivery, never the secret', async () => {
    const { plugin } = await handlerOnAgent();
    const delivered = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    const list = await adminCall(
      emu,
      'GET',
      `/_emulator/deliveries?pluginId=${plugin.id}&type=PLUGIN_INSTALLED,WEBHOOK_CHALLENGE&@sortOrder=asc`,
    );
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { type: string }) => d.type)).toEqual([
      'WEBHOOK_CHALLENGE',
      'PLUGIN_INSTALLED',
    ]);
    expect(list.body.meta.pagination).toMatchObject({ type: 'index', total: 2 });
    expect(JSON.stringify(list.body)).not.toContain(plugin.webhookSecret);
    const one = await adminCall(emu, 'GET', `/_emulator/deliveries/${delivered.id}`);
    expect(one.body.data).toMatchObject({
      id: delivered.id,
      status: 'delivered',
      url: expect.stringContaining('/webhook'),
    });
    expect(one.body.data).not.toHaveProperty('secret');
    expect((await adminCall(emu, 'GET', '/_emulator/deliveries/dlv_nope')).status).toBe(404);
    expect(
      (await adminCall(emu, 'GET', '/_emulator/deliveries?status=pending&@limit=0')).status,
    ).toBe(400);
  });

  it('streams every new attempt as server-sent events', async () => {
    const hook = await server();
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
    });
    const controller = new AbortController();
    const stream = await request(`${emu.url}/_emulator/deliveries/stream?pluginId=${plugin.id}`, {
      signal: controller.signal,
      headers: emu.adminHeaders,
    });
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toMatch(/text\/event-stream/);
    const seen: string[] = [];
    const attempts = (async () => {
      let text = '';
      for await (const chunk of stream.body) {
        text += chunk.toString();
        const frames = text.split('\n\n');
        text = frames.pop()!;
        for (const frame of frames) {
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (frame.includes('event: attempt') && data)
            seen.push(JSON.parse(data.slice(6)).delivery.type);
          if (seen.includes('PLUGIN_INSTALLED')) return seen;
        }
      }
      return seen;
    })();
    await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'streamed',
        pluginId: plugin.id,
        events: [],
        scopes: [],
      },
    });
    expect(await attempts).toEqual(['PLUGIN_INSTALLED']);
    controller.abort();
  });

  it('waitForDelivery resolves with existing deliveries and rejects after its timeout', async () => {
    const { plugin } = await handlerOnAgent();
    const first = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    expect(await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id })).toEqual(
      first,
    );
    await expect(
      emu.waitForDelivery({ type: 'PLUGIN_UNINSTALLED', pluginId: plugin.id, timeoutMs: 50 }),
    ).rejects.toThrow(/no delivered delivery/);
  });
});

describe('giving up', () => {
  it('marks a delivery exhausted once the schedule is used up', async () => {
    const local = await emulator({
      seed: ROLES_SEED,
      delivery: { schedule: [5, 5], timeoutMs: 1000 },
    });
    const hook = await server();
    const plugin = await verifiedPlugin(local, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
    });
    hook.responder = () => ({ status: 500 });
    await call(local.url, 'POST', '/api/agents/agent_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'doomed',
        pluginId: plugin.id,
        events: [],
        scopes: [],
      },
    });
    const delivery = await local.waitForDelivery({
      type: 'PLUGIN_INSTALLED',
      pluginId: plugin.id,
      status: 'exhausted',
    });
    expect(delivery.attempts).toHaveLength(3);
    expect(delivery.nextAttemptAt).toBeNull();
    expect(delivery.attempts[2].nextAttemptAt).toBeNull();
  });
});
