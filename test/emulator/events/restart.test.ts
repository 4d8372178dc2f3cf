import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, temporaryDataDir } from '../../../emulator/index.js';
import type { AttemptNotice } from '../../../emulator/events/dispatcher.js';
import { answerProperly, call, ROLES_SEED, TOKENS, verifiedPlugin, WebhookServer } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('pending deliveries across a restart', () => {
  it('resumes a delivery scheduled for retry when the emulator starts again on the same data dir', async () => {
    const dir = await temporaryDataDir();
    cleanups.push(dir.remove);
    const hook = await WebhookServer.start();
    cleanups.push(() => hook.close());

    const first = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir, delivery: { schedule: [1500], jitter: 0 } });
    let closed = false;
    try {
      const plugin = await verifiedPlugin(first, TOKENS.member, 'org_acme', { type: 'DATA_PROVIDER', webhookUrl: hook.url });
      hook.responder = (event, received) => (event.type === 'PLUGIN_INSTALLED' ? { status: 500 } : answerProperly(event, received));
      const attempted = new Promise<AttemptNotice>((resolve) => first.services.events.onAttempt((n) => n.delivery.type === 'PLUGIN_INSTALLED' && resolve(n)));
      const installed = await call(first.url, 'POST', '/api/repositories/repo_acme/data-providers', TOKENS.member, { name: 'dp', pluginId: plugin.id, events: [], scopes: [] });
      expect(installed.status).toBe(201);
      const notice = await attempted;
      expect(notice.delivery.status).toBe('pending');
      await first.close();
      closed = true;
      expect(hook.ofType('PLUGIN_INSTALLED')).toHaveLength(1);

      hook.responder = answerProperly;
      const second = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir, delivery: { schedule: [1500], jitter: 0 } });
      try {
        const delivery = await second.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id, timeoutMs: 5000 });
        expect(delivery.id).toBe(notice.delivery.id);
        expect(delivery.attempts.map((a) => a.responseStatus)).toEqual([500, 200]);
        const received = hook.ofType('PLUGIN_INSTALLED');
        expect(received).toHaveLength(2);
        expect(received[1].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
      } finally {
        await second.close();
      }
    } finally {
      if (!closed) await first.close();
    }
  });

  it('redoes an attempt cut short by close()', async () => {
    const dir = await temporaryDataDir();
    cleanups.push(dir.remove);
    const hook = await WebhookServer.start();
    cleanups.push(() => hook.close());

    const first = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir, delivery: { timeoutMs: 5000 } });
    const plugin = await verifiedPlugin(first, TOKENS.member, 'org_acme', { type: 'DATA_PROVIDER', webhookUrl: hook.url });
    hook.responder = (event, received) => (event.type === 'PLUGIN_INSTALLED' ? { hang: true } : answerProperly(event, received));
    await call(first.url, 'POST', '/api/repositories/repo_acme/data-providers', TOKENS.member, { name: 'dp', pluginId: plugin.id, events: [], scopes: [] });
    await hook.waitFor(1, 'PLUGIN_INSTALLED');
    const started = Date.now();
    await first.close();
    expect(Date.now() - started).toBeLessThan(3000); // a brief grace, not the 5 s timeout

    hook.responder = answerProperly;
    const second = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir });
    try {
      const delivery = await second.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id, timeoutMs: 5000 });
      // The interrupted attempt was not logged: it never completed.
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0].responseStatus).toBe(200);
    } finally {
      await second.close();
    }
  });
});
