import { sampleData } from '../../../src/trigger/fixtures.js';
import { adminCall, emulator } from '../../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { call } from '../../kit/http.js';
import { install, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';

// The delivery log's scenario filters (issue 45): `scenario` takes whole names, as before;
// `@scenarioContains` takes part of one, in any case. Both through the API of a real emulator and
// as its OpenAPI document declares them.

let emu: Emulator;
let hook: WebhookServer;
let plugin: { id: string };
let instanceId: string;
let agentId: string;
const emitted: Record<string, string[]> = {};

/** Emits one AGENT_MESSAGE_RECEIVED while `scenario` runs (none with null); its delivery id. */
async function emitUnder(scenario: string | null): Promise<string> {
  expect(
    (await adminCall(emu, 'PUT', '/_emulator/scenario', { body: { name: scenario } })).status,
  ).toBe(200);
  const answer = await adminCall(emu, 'POST', '/_emulator/events', {
    body: {
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: plugin.id,
      pluginInstanceId: instanceId,
      data: sampleData('AGENT_MESSAGE_RECEIVED', {
        agentId,
        messageId: 'msg_scenario',
        text: 'hi',
      }),
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  const id = answer.body.data.id as string;
  const key = scenario ?? '';
  emitted[key] = [...(emitted[key] ?? []), id];
  return id;
}

beforeAll(async () => {
  emu = await emulator({ inMemory: true });
  hook = await WebhookServer.start();
  plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    events: ['AGENT_MESSAGE_RECEIVED'],
  });
  agentId = emu.agentId!;
  instanceId = (
    await install(emu, hook, emu.token!, `/api/agents/${agentId}/plugins`, {
      name: 'On the agent',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
    })
  ).instance.id;
  for (const name of [
    'Checkout flow',
    'checkout flow',
    'refund after checkout',
    'a, b and c',
    'refund',
    null,
  ])
    await emitUnder(name);
  await emitUnder('Checkout flow');
});
afterAll(async () => {
  await hook?.close();
});

/** The ids of the deliveries a query of the list matches (one page of 100). */
async function ids(query: Record<string, string>): Promise<string[]> {
  const answer = await call(emu.url, 'GET', '/_emulator/deliveries', {
    headers: emu.adminHeaders,
    query: { '@limit': '100', ...query },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body.data as Array<{ id: string }>).map((d) => d.id).sort();
}

const of = (...names: string[]) => names.flatMap((n) => emitted[n] ?? []).sort();

describe('GET /_emulator/deliveries: the scenario filters', () => {
  it('scenario matches whole names only, case and all, as before', async () => {
    expect(await ids({ scenario: 'Checkout flow' })).toEqual(of('Checkout flow'));
    expect(await ids({ scenario: 'checkout flow' })).toEqual(of('checkout flow'));
    expect(await ids({ scenario: 'checkout' })).toEqual([]);
    // A comma list is any of its names.
    expect(await ids({ scenario: 'refund,checkout flow' })).toEqual(of('refund', 'checkout flow'));
  });

  it('@scenarioContains matches part of a name in any case, commas included, and never an untagged delivery', async () => {
    expect(await ids({ '@scenarioContains': 'checkout' })).toEqual(
      of('Checkout flow', 'checkout flow', 'refund after checkout'),
    );
    expect(await ids({ '@scenarioContains': 'CHECKOUT FLOW' })).toEqual(
      of('Checkout flow', 'checkout flow'),
    );
    expect(await ids({ '@scenarioContains': 'refund' })).toEqual(
      of('refund after checkout', 'refund'),
    );
    expect(await ids({ '@scenarioContains': ', b' })).toEqual(of('a, b and c'));
    expect(await ids({ '@scenarioContains': 'no such scenario' })).toEqual([]);
    // With other filters: all apply.
    expect(
      await ids({ '@scenarioContains': 'checkout', scenario: 'refund after checkout' }),
    ).toEqual(of('refund after checkout'));
    expect(
      await ids({ '@scenarioContains': 'checkout', pluginId: plugin.id, type: 'PLUGIN_INSTALLED' }),
    ).toEqual([]);
    expect(
      await ids({
        '@scenarioContains': 'checkout',
        pluginId: plugin.id,
        type: 'AGENT_MESSAGE_RECEIVED',
      }),
    ).toEqual(of('Checkout flow', 'checkout flow', 'refund after checkout'));
  });

  it('refuses an empty, repeated or too long @scenarioContains with a 400 naming it', async () => {
    for (const query of [
      '@scenarioContains=',
      '@scenarioContains=a&@scenarioContains=b',
      `@scenarioContains=${'x'.repeat(201)}`,
    ]) {
      const answer = await adminCall(emu, 'GET', `/_emulator/deliveries?${query}`);
      expect(answer.status, query.slice(0, 40)).toBe(400);
      expect(answer.body.error.details[0].path, query.slice(0, 40)).toEqual(['@scenarioContains']);
    }
  });

  it('the bulk resend matches what the list shows under @scenarioContains', async () => {
    const matched = await ids({ '@scenarioContains': 'REFUND' });
    expect(matched).toEqual(of('refund after checkout', 'refund'));
    const bulk = await adminCall(
      emu,
      'POST',
      '/_emulator/deliveries/redeliver?%40scenarioContains=REFUND',
    );
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(bulk.body.data.count).toBe(matched.length);
    for (const id of bulk.body.data.deliveries as string[]) {
      const resent = await adminCall(emu, 'GET', `/_emulator/deliveries/${id}`);
      expect(matched).toContain(resent.body.data.redeliveryOf);
    }
  });
});

describe('the OpenAPI document', () => {
  it('declares scenario and @scenarioContains on the list and the bulk resend, as strings with what they match', async () => {
    const doc = (await call(emu.url, 'GET', '/_emulator/openapi.json')).body;
    for (const [path, method] of [
      ['/_emulator/deliveries', 'get'],
      ['/_emulator/deliveries/redeliver', 'post'],
    ] as const) {
      const parameters = doc.paths[path][method].parameters as Array<{
        in: string;
        name: string;
        description?: string;
        schema: Record<string, unknown>;
      }>;
      const declared = (name: string) =>
        parameters.find((p) => p.in === 'query' && p.name === name);
      const part = declared('@scenarioContains');
      expect(part, `${method} ${path}`).toBeDefined();
      expect(part!.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
      expect(part!.description ?? part!.schema.description).toMatch(/Part of the name/);
    }
    const list = doc.paths['/_emulator/deliveries'].get.parameters as Array<{
      in: string;
      name: string;
    }>;
    expect(list.find((p) => p.in === 'query' && p.name === 'scenario')).toBeDefined();
  });
});
