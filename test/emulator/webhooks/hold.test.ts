import { adminCall, call, emulator } from '../../kit/index.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, temporaryDataDir, type Emulator } from '../../../emulator/index.js';
import { createClient } from '../../../src/client/index.js';
import { answerProperly, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function started(options: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
  return emulator({ seed: ROLES_SEED, ...options });
}

async function hookServer(): Promise<WebhookServer> {
  const hook = await WebhookServer.start();
  cleanups.push(() => hook.close());
  return hook;
}

function adminClient(emu: Emulator) {
  const client = createClient({ baseUrl: emu.url, adminToken: emu.adminToken, retries: 0 });
  cleanups.push(() => client.close());
  return client.emulator;
}

/** Installs a data provider whose PLUGIN_INSTALLED is SYNC: the answer comes after its first attempt, or once it is held. */
async function installSync(emu: Emulator, pluginId: string, name: string) {
  const installed = await call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
    bearer: TOKENS.member,
    body: { name, pluginId, events: [], scopes: [], eventDispatchMode: 'SYNC' },
  });
  expect(installed.status).toBe(201);
  const [delivery] = emu.deliveries
    .list({ type: 'PLUGIN_INSTALLED', pluginId, status: 'any' })
    .filter((d) => d.pluginInstanceId === installed.body.data.id);
  return delivery;
}

describe('holding a plugin’s deliveries', () => {
  it('makes no attempt while held (a challenge still goes), then sends everything held at once on release, oldest first', async () => {
    const hook = await hookServer();
    const emu = await started({});
    const admin = adminClient(emu);
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
    });

    const hold = await admin.holds.hold(plugin.id);
    expect(hold).toMatchObject({ pluginId: plugin.id, held: true, heldDeliveries: 0 });
    expect(Date.parse(hold.expiresAt!) - Date.parse(hold.since!)).toBeGreaterThanOrEqual(59_000);

    // SYNC answers at once as held: pending, marked, no attempt spent.
    const first = await installSync(emu, plugin.id, 'first');
    const second = await installSync(emu, plugin.id, 'second');
    for (const held of [first, second]) {
      expect(held).toMatchObject({ status: 'pending', attempts: [], nextAttemptAt: null });
      expect(held.heldSince).toEqual(expect.any(String));
    }
    expect((await admin.holds.get(plugin.id)).heldDeliveries).toBe(2);

    // A retry asked for by hand is refused while held; the challenge is never held.
    const retry = await adminCall(emu, 'POST', `/_emulator/deliveries/${first.id}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body.error.message).toMatch(/held.*release the hold/);
    const verified = await call(emu.url, 'POST', `/api/plugins/${plugin.id}/verify-webhook`, {
      bearer: TOKENS.member,
    });
    expect(verified.body.data.verified).toBe(true);
    expect(hook.ofType('PLUGIN_INSTALLED')).toHaveLength(0);

    const released = await admin.holds.release(plugin.id);
    expect(released).toMatchObject({ held: false, since: null, expiresAt: null, released: 2 });
    const arrived = await hook.waitFor(2, 'PLUGIN_INSTALLED');
    expect(arrived.map((r) => r.event.pluginInstanceId)).toEqual([
      first.pluginInstanceId,
      second.pluginInstanceId,
    ]);
    for (const held of [first, second]) {
      const delivered = await emu.waitForDelivery({ eventId: held.eventId });
      expect(delivered.attempts).toHaveLength(1);
      expect(delivered.attempts[0].responseStatus).toBe(200);
      expect(delivered.heldSince).toBeUndefined();
    }
  });

  it('ends a hold that is never released after its bound, and says so in the log', async () => {
    const lines: string[] = [];
    const hook = await hookServer();
    const emu = await started({ log: (line) => lines.push(line) });
    const admin = adminClient(emu);
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
    });
    await admin.holds.hold(plugin.id, { forMs: 200 });
    const held = await installSync(emu, plugin.id, 'dp');
    expect(held.heldSince).toEqual(expect.any(String));

    const delivered = await emu.waitForDelivery({ eventId: held.eventId, timeoutMs: 5000 });
    expect(delivered.attempts).toHaveLength(1);
    expect((await admin.holds.get(plugin.id)).held).toBe(false);
    expect(lines.join('\n')).toMatch(
      new RegExp(`hold on plugin ${plugin.id}'s deliveries expired.*1 held deliveries go now`),
    );
  });

  it('answers 404 for an unknown plugin and 400 for a bound out of range', async () => {
    const emu = await started({});
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await adminCall(emu, method, '/_emulator/plugins/plg_none/hold', {
        body: method === 'PUT' ? {} : undefined,
      });
      expect(answer.status, method).toBe(404);
    }
    const hook = await hookServer();
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
    });
    for (const forMs of [0, 600_001, 'soon']) {
      const answer = await adminCall(emu, 'PUT', `/_emulator/plugins/${plugin.id}/hold`, {
        body: { forMs },
      });
      expect(answer.status, String(forMs)).toBe(400);
    }
    const notHeld = await adminCall(emu, 'DELETE', `/_emulator/plugins/${plugin.id}/hold`);
    expect(notHeld.body.data).toMatchObject({ held: false, released: 0 });
  });

  it('holds an overdue retry at a start with holdDeliveries until the plugin is released', async () => {
    const dir = await temporaryDataDir();
    cleanups.push(dir.remove);
    const hook = await hookServer();
    const delivery = { schedule: [300], jitter: 0 };
    const first = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir, delivery });
    let plugin: { id: string };
    try {
      plugin = await verifiedPlugin(first, TOKENS.member, 'org_acme', {
        type: 'DATA_PROVIDER',
        webhookUrl: hook.url,
      });
      hook.responder = (event, received) =>
        event.type === 'PLUGIN_INSTALLED' ? { status: 500 } : answerProperly(event, received);
      const failed = await installSync(first, plugin.id, 'dp');
      expect(failed.attempts.map((a) => a.responseStatus)).toEqual([500]);
    } finally {
      await first.close();
    }
    hook.responder = answerProperly;

    const second = await started({ dataDir: dir.dir, delivery, holdDeliveries: true });
    const admin = adminClient(second);
    // The retry falls due while held: it is set aside, marked, its attempt count kept.
    await vi.waitFor(
      async () => expect((await admin.holds.get(plugin.id)).heldDeliveries).toBe(1),
      { timeout: 5000, interval: 20 },
    );
    const [held] = second.deliveries.list({ type: 'PLUGIN_INSTALLED', status: 'pending' });
    expect(held.attempts).toHaveLength(1);
    expect(held.heldSince).toEqual(expect.any(String));
    expect(hook.ofType('PLUGIN_INSTALLED')).toHaveLength(1);

    await admin.holds.release(plugin.id);
    const delivered = await second.waitForDelivery({ eventId: held.eventId, timeoutMs: 5000 });
    expect(delivered.attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
    expect(hook.ofType('PLUGIN_INSTALLED')).toHaveLength(2);
  });
});
