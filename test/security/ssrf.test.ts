import { call, adminCall, emulator } from '../kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { install, verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../kit/roles-seed.js';
import { emulatorInternals } from '../../emulator/internals.js';

// A plugin is an org member's code: whatever URL it names as its webhook, the emulator's own
// webhook requests (challenges and deliveries, sent from 127.0.0.1) must not reach /_emulator.

let emu: Emulator;
let victimHook: WebhookServer;
let attackerHook: WebhookServer;
/** A PLUGIN_INSTALLED delivery of org_acme's plugin: what a redeliver SSRF would send again. */
let victimDelivery: { id: string; eventId: string };

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeScale: 0.01 } });
  victimHook = await WebhookServer.start();
  attackerHook = await WebhookServer.start();
  const victim = await verifiedPlugin(emu, TOKENS.owner, 'org_acme', {
    type: 'DATA_PROVIDER',
    webhookUrl: victimHook.url,
    name: 'Victim',
  });
  const { instance } = await install(
    emu,
    victimHook,
    TOKENS.owner,
    '/api/repositories/repo_acme/data-providers',
    { pluginId: victim.id, name: 'Victim docs', events: [], scopes: [] },
  );
  const delivered = await emu.waitForDelivery({
    type: 'PLUGIN_INSTALLED',
    pluginInstanceId: instance.id,
  });
  victimDelivery = { id: delivered.id, eventId: delivered.eventId };
});

afterAll(async () => {
  await victimHook?.close();
  await attackerHook?.close();
});

/** Counts that a reset or import would change. */
function storeShape() {
  return {
    plugins: emulatorInternals(emu).db.plugins.size,
    instances: emulatorInternals(emu).db.instances.size,
    deliveries: emulatorInternals(emu).db.deliveries.size,
  };
}

/** URLs that all name the emulator's own admin paths on its own port, spelled as an attacker would. */
function ownAdminUrls(path: string): string[] {
  const port = new URL(emu.url).port;
  return [
    `${emu.url}${path}`,
    `http://localhost:${port}${path}`,
    `http://127.1.2.3:${port}${path}`,
    `http://2130706433:${port}${path}`, // 127.0.0.1 as one decimal number
    `http://0.0.0.0:${port}${path}`,
    `http://[::ffff:127.0.0.1]:${port}${path}`,
    `http://[::1]:${port}${path}`,
    `http://LOCALHOST.:${port}${path}`,
    `http://127.0.0.1:${port}/%5Femulator${path.slice('/_emulator'.length)}`,
    `http://127.0.0.1:${port}//_emulator${path.slice('/_emulator'.length)}`,
  ];
}

describe('a webhook URL aimed at the emulator itself', () => {
  it('is refused with a 400 naming webhookUrl at create and update, in every spelling', async () => {
    for (const webhookUrl of [
      ...ownAdminUrls('/_emulator/reset'),
      `${emu.url}/_storage/anything`,
      `${emu.url}/_emulator/deliveries/${victimDelivery.id}/redeliver`,
    ]) {
      const created = await call(emu.url, 'POST', '/api/orgs/org_other/plugins', {
        bearer: TOKENS.outsider,
        body: {
          name: 'Evil',
          type: 'EVENT_HANDLER',
          events: [],
          scopes: [],
          webhookUrl,
        },
      });
      expect(created.status, webhookUrl).toBe(400);
      expect(created.body.error.details[0].path).toEqual(['webhookUrl']);
      expect(created.body.error.message).toMatch(/own \/_(emulator|storage) paths/);
    }
    // Another server's /_emulator path (another port) is that server's business.
    const elsewhere = await call(emu.url, 'POST', '/api/orgs/org_other/plugins', {
      bearer: TOKENS.outsider,
      body: {
        name: 'Elsewhere',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: 'http://127.0.0.1:1/_emulator/reset',
      },
    });
    expect(elsewhere.status).toBe(201);
    const plugin = await call(emu.url, 'POST', '/api/orgs/org_other/plugins', {
      bearer: TOKENS.outsider,
      body: {
        name: 'Evil',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: attackerHook.url,
      },
    });
    expect(plugin.status).toBe(201);
    const updated = await call(emu.url, 'PUT', `/api/plugins/${plugin.body.data.id}`, {
      bearer: TOKENS.outsider,
      body: { webhookUrl: `${emu.url}/_emulator/reset` },
    });
    expect(updated.status).toBe(400);
    expect(emulatorInternals(emu).db.plugins.get(plugin.body.data.id)!.webhookUrl).toBe(
      attackerHook.url,
    );
  });

  it('verify-webhook of a plugin whose stored URL is /_emulator/reset sends nothing there and resets nothing', async () => {
    // The URL is stored directly, as a plugin saved before the emulator moved to this port would hold it.
    const plugin = await call(emu.url, 'POST', '/api/orgs/org_other/plugins', {
      bearer: TOKENS.outsider,
      body: {
        name: 'Evil reset',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: attackerHook.url,
      },
    });
    const record = emulatorInternals(emu).db.plugins.get(plugin.body.data.id)!;
    await emulatorInternals(emu).db.plugins.put({
      ...record,
      webhookUrl: `http://localhost:${new URL(emu.url).port}/_emulator/reset`,
    });
    const before = storeShape();

    const verify = await call(emu.url, 'POST', `/api/plugins/${record.id}/verify-webhook`, {
      bearer: TOKENS.outsider,
    });

    expect(verify.status).toBe(200);
    expect(verify.body.data.verified).toBe(false);
    expect(verify.body.data.reason).toMatch(/own \/_emulator paths/);
    // A reset would have emptied the store back to the seed: the victim's plugin and instance would be gone.
    const after = storeShape();
    expect(after.plugins).toBe(before.plugins);
    expect(after.instances).toBe(before.instances);
    expect(emulatorInternals(emu).db.deliveries.get(victimDelivery.id)).toBeDefined();
  });

  it("a delivery to another org's /_emulator/deliveries/:id/redeliver is not sent: the victim gets its event once", async () => {
    const plugin = await call(emu.url, 'POST', '/api/orgs/org_other/plugins', {
      bearer: TOKENS.outsider,
      body: {
        name: 'Evil redeliver',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: attackerHook.url,
      },
    });
    const record = emulatorInternals(emu).db.plugins.get(plugin.body.data.id)!;
    await emulatorInternals(emu).db.plugins.put({
      ...record,
      webhookUrl: `${emu.url}/_emulator/deliveries/${victimDelivery.id}/redeliver`,
    });

    // Both kinds of request the emulator sends: an ordinary (retried) delivery, and a challenge.
    const emitted = await adminCall(emu, 'POST', '/_emulator/events', {
      body: {
        type: 'WEBHOOK_CHALLENGE',
        pluginId: record.id,
        data: { challenge: 'x' },
      },
    });
    expect(emitted.status).toBe(201);
    expect(emitted.body.data.status).toBe('failed'); // refused for good, never retried
    expect(emitted.body.data.attempts[0].error).toMatch(/own \/_emulator paths/);
    expect(emitted.body.data.attempts[0].responseStatus).toBeNull();
    const verify = await call(emu.url, 'POST', `/api/plugins/${record.id}/verify-webhook`, {
      bearer: TOKENS.outsider,
    });
    expect(verify.body.data.verified).toBe(false);

    expect(
      emu.deliveries.list({ status: 'any' }).filter((d) => d.redeliveryOf === victimDelivery.id),
    ).toEqual([]);
    expect(victimHook.received.filter((r) => r.event.id === victimDelivery.eventId)).toHaveLength(
      1,
    );
  });
});
