import { call, emulator } from '../../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import {
  answerProperly,
  verifiedPlugin,
  WebhookServer,
  type Responder,
} from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// Four slots in all, two per plugin; attempts wait a minute for an answer, so a delivery that
// had to wait for a hanging attempt's slot would not arrive within the test's time.
let emu: Emulator;
const servers: WebhookServer[] = [];

beforeAll(async () => {
  emu = await emulator({
    seed: ROLES_SEED,
    delivery: { concurrency: 4, perPluginConcurrency: 2, timeoutMs: 60_000, timeScale: 0.01 },
  });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const MESSAGE = { agentId: 'agent_acme', characterId: 'c', conversationId: 'v', message: {} };

/** An EVENT_HANDLER plugin on its own webhook server, verified and installed on agent_acme; `responder` answers its messages. */
async function handler(responder: Responder) {
  const hook = await WebhookServer.start();
  servers.push(hook);
  const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
    type: 'EVENT_HANDLER',
    webhookUrl: hook.url,
    events: ['AGENT_MESSAGE_RECEIVED'],
  });
  const installed = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
    bearer: TOKENS.member,
    body: {
      name: 'handler',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
    },
  });
  expect(installed.status).toBe(201);
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
  hook.responder = (event, received) =>
    event.type === 'AGENT_MESSAGE_RECEIVED'
      ? responder(event, received)
      : answerProperly(event, received);
  const instance = emulatorInternals(emu).db.instances.get(installed.body.data.id)!;
  const send = (times = 1) =>
    Promise.all(
      Array.from({ length: times }, () =>
        emulatorInternals(emu).dispatcher.emitForInstances(
          'AGENT_MESSAGE_RECEIVED',
          [instance],
          MESSAGE,
        ),
      ),
    );
  return { hook, plugin, send };
}

describe('delivery slots', () => {
  it('a webhook that never answers holds only its own slots: other plugins are verified and delivered meanwhile', async () => {
    const hanging = await handler(() => ({ hang: true }));
    await hanging.send(10);
    await hanging.hook.waitFor(2, 'AGENT_MESSAGE_RECEIVED');

    // A new plugin's challenge and installation, then a message: each needs a slot.
    const healthy = await handler(answerProperly);
    await healthy.send();
    const delivered = await emu.waitForDelivery({
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: healthy.plugin.id,
    });
    expect(delivered.attempts).toMatchObject([{ responseStatus: 200 }]);

    // The hanging webhook got no more than its two attempts, and all ten still wait.
    expect(hanging.hook.ofType('AGENT_MESSAGE_RECEIVED')).toHaveLength(2);
    const stuck = emu.deliveries.list({
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId: hanging.plugin.id,
      status: 'any',
    });
    expect(stuck).toHaveLength(10);
    expect(stuck.every((d) => d.status === 'pending' && d.attempts.length === 0)).toBe(true);
  });

  it('plugins take free slots in turn: a backlog of one plugin does not go before another plugin’s delivery', async () => {
    // The first test's hanging plugin still holds two slots; the busy plugin takes the other two.
    const arrivals: string[] = [];
    const gates: Array<() => void> = [];
    const busy = await handler(async (event) => {
      arrivals.push('busy');
      await new Promise<void>((resolve) => gates.push(resolve));
      return answerProperly(event, undefined as never);
    });
    const other = await handler((event, received) => {
      arrivals.push('other');
      return answerProperly(event, received);
    });
    await busy.send(20);
    await busy.hook.waitFor(2, 'AGENT_MESSAGE_RECEIVED');
    await other.send();
    expect(arrivals).toEqual(['busy', 'busy']);

    // One slot frees: it goes to the other plugin, not to the busy plugin's next delivery.
    gates.shift()!();
    await emu.waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', pluginId: other.plugin.id });
    await busy.hook.waitFor(3, 'AGENT_MESSAGE_RECEIVED');
    expect(arrivals).toEqual(['busy', 'busy', 'other', 'busy']);

    // The backlog still drains, two at a time.
    const openWaiting = () => {
      for (const open of gates.splice(0)) open();
    };
    const drain = setInterval(openWaiting, 5);
    try {
      await busy.hook.waitFor(20, 'AGENT_MESSAGE_RECEIVED');
      for (const d of emu.deliveries.list({
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: busy.plugin.id,
        status: 'any',
      })) {
        if (d.status !== 'delivered') await emu.waitForDelivery({ eventId: d.eventId });
      }
    } finally {
      clearInterval(drain);
    }
  });
});
