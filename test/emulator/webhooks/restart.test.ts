import { call, adminCall } from '../../kit/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, temporaryDataDir } from '../../../emulator/index.js';
import type { DeliveryAttemptNotice as AttemptNotice } from '#contract';
import { answerProperly, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

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

    const first = await startEmulator({
      seed: ROLES_SEED,
      dataDir: dir.dir,
      delivery: { schedule: [1500], jitter: 0 },
    });
    let closed = false;
    try {
      const plugin = await verifiedPlugin(first, TOKENS.member, 'org_acme', {
        type: 'DATA_PROVIDER',
        webhookUrl: hook.url,
      });
      hook.responder = (event, received) =>
        event.type === 'PLUGIN_INSTALLED' ? { status: 500 } : answerProperly(event, received);
      const attempted = new Promise<AttemptNotice>((resolve) =>
        emulatorInternals(first).dispatcher.onAttempt(
          (n) => n.delivery.type === 'PLUGIN_INSTALLED' && resolve(n),
        ),
      );
      const installed = await call(
        first.url,
        'POST',
        '/api/repositories/repo_acme/data-providers',
        {
          bearer: TOKENS.member,
          body: { name: 'dp', pluginId: plugin.id, events: [], scopes: [] },
        },
      );
      expect(installed.status).toBe(201);
      const notice = await attempted;
      expect(notice.delivery.status).toBe('pending');
      await first.close();
      closed = true;
      expect(hook.ofType('PLUGIN_INSTALLED')).toHaveLength(1);

      hook.responder = answerProperly;
      const second = await startEmulator({
        seed: ROLES_SEED,
        dataDir: dir.dir,
        delivery: { schedule: [1500], jitter: 0 },
      });
      try {
        const delivery = await second.waitForDelivery({
          type: 'PLUGIN_INSTALLED',
          pluginId: plugin.id,
          timeoutMs: 5000,
        });
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

    // close() must cut the attempt off after a brief grace: waiting for this timeout would outlast the test.
    const first = await startEmulator({
      seed: ROLES_SEED,
      dataDir: dir.dir,
      delivery: { timeoutMs: 600_000 },
    });
    const plugin = await verifiedPlugin(first, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
    });
    hook.responder = (event, received) =>
      event.type === 'PLUGIN_INSTALLED' ? { hang: true } : answerProperly(event, received);
    await call(first.url, 'POST', '/api/repositories/repo_acme/data-providers', {
      bearer: TOKENS.member,
      body: {
        name: 'dp',
        pluginId: plugin.id,
        events: [],
        scopes: [],
      },
    });
    await hook.waitFor(1, 'PLUGIN_INSTALLED');
    await first.close();

    hook.responder = answerProperly;
    const second = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir });
    try {
      const delivery = await second.waitForDelivery({
        type: 'PLUGIN_INSTALLED',
        pluginId: plugin.id,
        timeoutMs: 5000,
      });
      // The interrupted attempt was not logged: it never completed.
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.attempts[0].responseStatus).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('closes a challenge cut off by close() as failed at the next start: never sent again, verification left as it was', async () => {
    const dir = await temporaryDataDir();
    cleanups.push(dir.remove);
    const hook = await WebhookServer.start();
    cleanups.push(() => hook.close());

    const first = await startEmulator({
      seed: ROLES_SEED,
      dataDir: dir.dir,
      delivery: { timeoutMs: 60_000 },
    });
    const plugin = await verifiedPlugin(first, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
    });
    hook.responder = (event, received) =>
      event.type === 'WEBHOOK_CHALLENGE' ? { hang: true } : answerProperly(event, received);
    const verifying = call(first.url, 'POST', `/api/plugins/${plugin.id}/verify-webhook`, {
      bearer: TOKENS.member,
    }).catch((error: Error) => error);
    await hook.waitFor(2, 'WEBHOOK_CHALLENGE');
    await first.close();
    const answer = await verifying;
    if (!(answer instanceof Error))
      expect(answer.body.data).toMatchObject({
        verified: false,
        reason: expect.stringContaining('stopped before the webhook answered'),
      });

    // A wrong answer now would be judged "delivered" if the cut-off challenge were simply sent again.
    hook.responder = (event, received) =>
      event.type === 'WEBHOOK_CHALLENGE'
        ? { body: { challenge: 'wrong' } }
        : answerProperly(event, received);
    const second = await startEmulator({ seed: ROLES_SEED, dataDir: dir.dir });
    try {
      const challenges = second.deliveries.list({
        type: 'WEBHOOK_CHALLENGE',
        pluginId: plugin.id,
        status: 'any',
      });
      expect(challenges.map((d) => d.status)).toEqual(['delivered', 'failed']);
      expect(challenges[1].attempts.at(-1)!.error).toMatch(
        /stopped before the webhook answered.*plugsmith plugins verify/,
      );
      const read = await call(second.url, 'GET', `/api/plugins/${plugin.id}`, {
        bearer: TOKENS.member,
      });
      expect(read.body.data.webhookUrlIsVerified).toBe(true);

      // A challenge is not redelivered either: its answer is judged only by verify-webhook.
      const redelivered = await adminCall(
        second,
        'POST',
        `/_emulator/deliveries/${challenges[1].id}/redeliver`,
      );
      expect(redelivered.status).toBe(409);
      expect(redelivered.body.error).toMatchObject({
        error: 'CONFLICT',
        message: expect.stringContaining('verify-webhook'),
      });

      // The next challenge is a new one, judged: the wrong answer fails it.
      const again = await call(second.url, 'POST', `/api/plugins/${plugin.id}/verify-webhook`, {
        bearer: TOKENS.member,
      });
      expect(again.body.data).toMatchObject({ verified: false });
      expect(hook.ofType('WEBHOOK_CHALLENGE')).toHaveLength(3);
    } finally {
      await second.close();
    }
  });
});
