import { call, adminCall } from '../../kit/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { answerProperly, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir, and tests the options startEmulator refuses.

let emu: Emulator | undefined;
let dir = '';
const servers: WebhookServer[] = [];
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const LIMIT = 10;
const MESSAGE = {
  agentId: 'agent_acme',
  characterId: 'char_x',
  conversationId: 'conv_x',
  message: { id: 'msg_1', content: 'hi' },
};

describe('the delivery log limit', () => {
  it('drops the oldest finished deliveries past the limit, keeps pending ones, and the drop is durable', async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugsmith-retention-'));
    // A retry a minute away keeps the failing plugin's delivery pending for the whole test.
    const options = {
      dataDir: dir,
      seed: ROLES_SEED,
      delivery: { logLimit: LIMIT, schedule: [60_000] },
    };
    emu = await startEmulator(options);

    // A plugin whose webhook fails after verification: its PLUGIN_INSTALLED stays pending.
    const failing = await WebhookServer.start();
    servers.push(failing);
    const stuck = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: failing.url,
    });
    failing.responder = (event, received) =>
      event.type === 'WEBHOOK_CHALLENGE' ? answerProperly(event, received) : { status: 500 };
    expect(
      (
        await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
          bearer: TOKENS.member,
          body: {
            name: 'stuck',
            pluginId: stuck.id,
            events: [],
            scopes: [],
          },
        })
      ).status,
    ).toBe(201);
    const pending = await emu.waitForDelivery({
      type: 'PLUGIN_INSTALLED',
      pluginId: stuck.id,
      status: 'pending',
    });

    // A healthy plugin that receives 30 events.
    const healthy = await WebhookServer.start();
    servers.push(healthy);
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: healthy.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
    });
    const installed = await call(emu.url, 'POST', '/api/agents/agent_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'ok',
        pluginId: plugin.id,
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
      },
    });
    expect(installed.status).toBe(201);
    const sent: string[] = [];
    for (let i = 0; i < 30; i++) {
      const [delivery] = await emulatorInternals(emu).dispatcher.emitToEntity(
        'AGENT',
        'agent_acme',
        'AGENT_MESSAGE_RECEIVED',
        MESSAGE,
      );
      sent.push(delivery.id);
    }
    await healthy.waitFor(30, 'AGENT_MESSAGE_RECEIVED');
    await emu.waitForDelivery({ eventId: emu.deliveries.get(sent.at(-1)!)!.eventId });

    const kept = () => emu!.deliveries.list().map((d) => d.id);
    // Pruned in batches: never more than a tenth over the limit.
    expect(kept().length).toBeLessThanOrEqual(LIMIT + LIMIT / 10);
    expect(kept().length).toBeGreaterThanOrEqual(LIMIT - 1);
    expect(kept()).toContain(pending.id);
    expect(kept()).toContain(sent.at(-1));
    expect(kept()).not.toContain(sent[0]);
    // The log's HTTP view agrees.
    const listed = await adminCall(emu, 'GET', '/_emulator/deliveries?@limit=100');
    expect(listed.body.data.map((d: { id: string }) => d.id).sort()).toEqual([...kept()].sort());

    const before = [...kept()].sort();
    await emu.close();
    emu = await startEmulator(options);
    expect([...kept()].sort()).toEqual(before);
  });

  it('refuses a log limit that is not a positive whole number', async () => {
    await expect(startEmulator({ delivery: { logLimit: 0 } })).rejects.toThrow(
      /logLimit must be a positive integer/,
    );
    await expect(startEmulator({ delivery: { logLimit: 2.5 } })).rejects.toThrow(/logLimit/);
  });
});
