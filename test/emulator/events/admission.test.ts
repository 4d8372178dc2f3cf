import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import type { InstanceRecord } from '../../../emulator/model.js';
import { answerProperly, call, ROLES_SEED, TOKENS, verifiedPlugin, WebhookServer } from './helpers.js';

// Four slots in all, two per plugin: a small backlog limit (the limit is `concurrency`).
const CONCURRENCY = 4;
let emu: Emulator;
const servers: WebhookServer[] = [];

beforeAll(async () => {
  emu = await startEmulator({ seed: ROLES_SEED, delivery: { concurrency: CONCURRENCY, perPluginConcurrency: 2, timeoutMs: 60_000, timeScale: 0.01 } });
});
afterAll(async () => {
  await emu.close();
  await Promise.all(servers.map((s) => s.close()));
});

const MESSAGE = { agentId: 'agent_acme', characterId: 'c', conversationId: 'v', message: {} };

/** `count` EVENT_HANDLER plugins on one webhook server, verified and installed on agent_acme. */
async function handlers(count: number, hook: WebhookServer): Promise<InstanceRecord[]> {
  const instances: InstanceRecord[] = [];
  for (let i = 0; i < count; i++) {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', { type: 'EVENT_HANDLER', webhookUrl: hook.url, events: ['AGENT_MESSAGE_RECEIVED'] });
    const installed = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', TOKENS.member, { name: `handler ${i}`, pluginId: plugin.id, events: ['AGENT_MESSAGE_RECEIVED'], scopes: [] });
    expect(installed.status).toBe(201);
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
    instances.push(emu.services.db.instances.get(installed.body.data.id)!);
  }
  return instances;
}

/** Deliveries of the given plugins still waiting for their first attempt to be answered. */
function unattempted(pluginIds: Set<string>): number {
  return emu.deliveries.list({ type: 'AGENT_MESSAGE_RECEIVED', status: 'pending' }).filter((d) => pluginIds.has(d.pluginId) && d.attempts.length === 0).length;
}

describe('delivery admission', () => {
  it('emitters that fan out faster than deliveries drain wait in line: the backlog stays near `concurrency`, and every event is delivered', async () => {
    const hook = await WebhookServer.start(answerProperly);
    servers.push(hook);
    const fanout = 5;
    const instances = await handlers(fanout, hook);
    const pluginIds = new Set(instances.map((i) => i.pluginId));

    // Forty emitters at once (API calls each adding a file to a repository with five data providers).
    let most = 0;
    const sample = () => (most = Math.max(most, unattempted(pluginIds)));
    const stop = emu.services.events.onAttempt(sample);
    const emitters = 40;
    try {
      await Promise.all(
        Array.from({ length: emitters }, () =>
          emu.services.events.emitForInstances('AGENT_MESSAGE_RECEIVED', instances, MESSAGE).then((sent) => {
            sample();
            expect(sent).toHaveLength(fanout);
          }),
        ),
      );
      // Without admission all 200 deliveries are queued at once. With it, an emitter queues its
      // five only while fewer than `concurrency` wait for the process; at most `concurrency`
      // more are out with the webhook or being logged.
      expect(most).toBeLessThanOrEqual(2 * CONCURRENCY + fanout);
      await hook.waitFor(emitters * fanout, 'AGENT_MESSAGE_RECEIVED');
    } finally {
      stop();
    }
  });

  it('deliveries waiting for a webhook that does not answer hold no emitter back', async () => {
    const hanging = await WebhookServer.start(answerProperly);
    servers.push(hanging);
    const [instance] = await handlers(1, hanging);
    hanging.responder = (event, received) => (event.type === 'AGENT_MESSAGE_RECEIVED' ? { hang: true } : answerProperly(event, received));

    // Two attempts out with the webhook (its two slots), the rest wait for them: more than
    // `concurrency` deliveries wait, but for the webhook, not for the process.
    const stuck = 3 * CONCURRENCY;
    for (let i = 0; i < stuck; i++) await emu.services.events.emitForInstances('AGENT_MESSAGE_RECEIVED', [instance], MESSAGE);
    await hanging.waitFor(2, 'AGENT_MESSAGE_RECEIVED');
    expect(unattempted(new Set([instance.pluginId]))).toBe(stuck);

    // Another plugin's event is queued and delivered at once.
    const hook = await WebhookServer.start(answerProperly);
    servers.push(hook);
    const [other] = await handlers(1, hook);
    await emu.services.events.emitForInstances('AGENT_MESSAGE_RECEIVED', [other], MESSAGE);
    await emu.waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', pluginId: other.pluginId });
  });
});
