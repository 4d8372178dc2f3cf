import { call, adminCall, emulator } from '../../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { Emulator } from '../../../emulator/index.js';
import {
  answerProperly,
  verifiedPlugin,
  verifyReceived,
  WebhookServer,
} from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';

// The admin endpoints the dashboard's Deliveries and Trigger views stand on: what an attempt logs
// (the signed request and the answer), the payload check of POST /_emulator/events, the stream's query.

let emu: Emulator;
let hook: WebhookServer;
let plugin: Awaited<ReturnType<typeof verifiedPlugin>>;
let instanceId: string;

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeoutMs: 2000, timeScale: 0.01 } });
  hook = await WebhookServer.start((event, received) =>
    event.type === 'WEBHOOK_CHALLENGE'
      ? answerProperly(event, received)
      : {
          status: 202,
          headers: { 'x-receiver': 'kept', 'set-cookie': 'a=1' },
          body: { seen: event.id },
        },
  );
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

function message(content: unknown) {
  const now = new Date().toISOString();
  return {
    agentId: 'agent_acme',
    characterId: 'char_sample',
    conversationId: 'conv_sample',
    message: {
      id: 'msg_1',
      conversationId: 'conv_sample',
      sender: 'USER',
      type: 'TEXT',
      content,
      attachments: [],
      isStreaming: false,
      createdAt: now,
      updatedAt: now,
    },
  };
}

describe('POST /_emulator/events', () => {
  it('refuses a payload that does not match the event schema, with details, and sends nothing', async () => {
    const before = hook.received.length;
    const logged = (
      await adminCall(emu, 'GET', `/_emulator/deliveries?pluginId=${plugin.id}&@limit=100`)
    ).body.data.length;
    const bad = message(42);
    delete (bad as Record<string, unknown>).agentId;
    const res = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: plugin.id,
        pluginInstanceId: instanceId,
        data: bad,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.error).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toBe(
      "data does not match the AGENT_MESSAGE_RECEIVED event's schema",
    );
    const paths = res.body.error.details.map((d: { path: string[] }) => d.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['data.agentId', 'data.message.content']));
    expect(
      res.body.error.details.find(
        (d: { path: string[] }) => d.path.join('.') === 'data.message.content',
      ),
    ).toMatchObject({ expected: 'string' });
    expect(hook.received.length).toBe(before);
    expect(
      (await adminCall(emu, 'GET', `/_emulator/deliveries?pluginId=${plugin.id}&@limit=100`)).body
        .data.length,
    ).toBe(logged);
  });

  it('sends a matching payload and logs the exact signed request and the answer', async () => {
    const res = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: plugin.id,
        pluginInstanceId: instanceId,
        data: message('it\'s "quoted" $(nope)\n'),
      },
    });
    expect(res.status).toBe(201);
    const delivery = res.body.data;
    expect(delivery.status).toBe('delivered');
    const received = hook.ofType('AGENT_MESSAGE_RECEIVED').at(-1)!;
    verifyReceived(received, plugin.webhookSecret);
    const [attempt] = delivery.attempts;
    // The body sent is exactly JSON.stringify(event); the logged headers are the ones that arrived.
    expect(JSON.stringify(delivery.event)).toBe(received.body);
    for (const name of [
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'content-type',
      'user-agent',
    ]) {
      expect(attempt.requestHeaders[name]).toBe(received.headers[name]);
    }
    expect(attempt.responseStatus).toBe(202);
    expect(attempt.responseHeaders).toMatchObject({
      'x-receiver': 'kept',
      'set-cookie': 'a=1',
      'content-type': 'application/json',
    });
    expect(attempt.responseBody).toBe(JSON.stringify({ seen: delivery.eventId }));
    // The same fields come back from the log, and after a redelivery on the new attempt.
    const got = await adminCall(emu, 'GET', `/_emulator/deliveries/${delivery.id}`);
    expect(got.body.data.attempts[0].requestHeaders['webhook-signature']).toBe(
      received.headers['webhook-signature'],
    );
    const again = await adminCall(emu, 'POST', `/_emulator/deliveries/${delivery.id}/redeliver`);
    expect(again.status).toBe(201);
    expect(again.body.data.attempts[0].requestHeaders['webhook-id']).toBe(delivery.eventId);
    expect(again.body.data.attempts[0].responseHeaders['x-receiver']).toBe('kept');
  });

  it('refuses an unknown event type and extra body fields by the contract schema', async () => {
    const unknownType = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'NOPE',
        pluginId: plugin.id,
        data: {},
      },
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.details.length).toBeGreaterThan(0);
    const extra = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'WEBHOOK_CHALLENGE',
        pluginId: plugin.id,
        data: { challenge: 'x' },
        surprise: 1,
      },
    });
    expect(extra.status).toBe(400);
  });

  it('refuses a WEBHOOK_CHALLENGE with an instance (the platform sends a challenge with pluginInstanceId null) and sends nothing', async () => {
    const before = hook.received.length;
    const res = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'WEBHOOK_CHALLENGE',
        pluginId: plugin.id,
        pluginInstanceId: instanceId,
        data: { challenge: 'x' },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      path: ['pluginInstanceId'],
      code: 'not_allowed',
    });
    expect(hook.received.length).toBe(before);
  });
});

describe('GET /_emulator/deliveries', () => {
  it('searches ids and plugin ids with @search and pages on with @cursor, newest first', async () => {
    const found = await adminCall(
      emu,
      'GET',
      `/_emulator/deliveries?@search=${plugin.id}&@sortOrder=desc&@limit=1&@cursor=`,
    );
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0].pluginId).toBe(plugin.id);
    expect(found.body.meta.pagination).toMatchObject({ type: 'cursor', hasNext: true });
    const next = await adminCall(
      emu,
      'GET',
      `/_emulator/deliveries?@search=${plugin.id}&@limit=1&@cursor=${found.body.meta.pagination.nextCursor}`,
    );
    expect(next.body.data[0].createdAt <= found.body.data[0].createdAt).toBe(true);
    expect(next.body.data[0].id).not.toBe(found.body.data[0].id);
  });
});

describe('GET /_emulator/deliveries/stream', () => {
  it('refuses a filter value that is no delivery status or event kind, with details', async () => {
    const res = await adminCall(emu, 'GET', '/_emulator/deliveries/stream?status=lost');
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toEqual(['status']);
    expect((await adminCall(emu, 'GET', '/_emulator/deliveries/stream?type=NOPE')).status).toBe(
      400,
    );
    expect((await adminCall(emu, 'GET', '/_emulator/deliveries/stream?other=1')).status).toBe(400);
  });

  it('streams the attempt with its logged request and response headers', async () => {
    const controller = new AbortController();
    const stream = await request(
      `${emu.url}/_emulator/deliveries/stream?pluginId=${plugin.id}&status=delivered`,
      { signal: controller.signal, headers: emu.adminHeaders },
    );
    expect(stream.statusCode).toBe(200);
    const first = (async () => {
      let text = '';
      for await (const chunk of stream.body) {
        text += chunk.toString();
        const frame = text.split('\n\n').find((f) => f.includes('event: attempt'));
        if (frame)
          return JSON.parse(
            frame
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
          );
      }
    })();
    const res = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: plugin.id,
        pluginInstanceId: instanceId,
        data: message('streamed'),
      },
    });
    const notice = await first;
    controller.abort();
    expect(notice.delivery.id).toBe(res.body.data.id);
    expect(notice.attempt.requestHeaders['webhook-id']).toBe(res.body.data.eventId);
    expect(notice.attempt.responseHeaders['x-receiver']).toBe('kept');
  });
});

describe('GET /_emulator/instances', () => {
  it('lists instances through the contract schema and refuses unknown filters', async () => {
    const res = await adminCall(emu, 'GET', `/_emulator/instances?pluginId=${plugin.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({ id: instanceId, pluginId: plugin.id, entityType: 'AGENT' }),
    ]);
    const bad = await adminCall(emu, 'GET', '/_emulator/instances?secret=1');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('Invalid query parameters');
  });
});
