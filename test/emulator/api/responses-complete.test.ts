import { call, adminCall, emulator } from '../../kit/index.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { install, verifiedPlugin, WebhookServer } from '../../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../../kit/roles-seed.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// Answers are written from their response schemas, which drop any field they do not name. These
// compare each answer with what the store holds, so a field the contract forgot shows up as missing.

let emu: Emulator;
let hook: WebhookServer;
beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeScale: 0.01 } });
  hook = await WebhookServer.start();
});
afterAll(async () => {
  await hook.close();
});

describe('answers carry every stored field the contract shows', () => {
  test('an instance, as installed and as listed, is the stored record', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    });
    const body = {
      name: 'complete',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      inputs: { a: 1 },
      eventDispatchMode: 'SYNC',
      eventDispatchCondition: { when: ['x'] },
    };
    const { instance } = await install(
      emu,
      hook,
      TOKENS.member,
      '/api/agents/agent_acme/plugins',
      body,
    );
    const stored = emulatorInternals(emu).db.instances.get(instance.id);
    expect(instance).toEqual(stored);
    const listed = await call(emu.url, 'GET', `/api/agents/agent_acme/plugins?id=${instance.id}`, {
      bearer: TOKENS.member,
    });
    expect(listed.body.data).toEqual([stored]);
  });

  test('an upload URL’s file record is the stored record without its storage key (POST and GET)', async () => {
    const request = {
      files: [{ fileName: 'a.pdf', contentType: 'application/pdf', fileSize: 10, isPublic: true }],
      folder: 'docs',
      orgId: 'org_acme',
    };
    for (const method of ['POST', 'GET']) {
      const answer = await call(emu.url, method, '/api/generate-upload-url', {
        bearer: TOKENS.member,
        body: request,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(method === 'POST' ? 201 : 200);
      const { files, expiresIn } = answer.body.data;
      expect(expiresIn).toBe(3600);
      const { storageKey, ...shown } = emulatorInternals(emu).db.files.get(files[0].fileRecord.id)!;
      expect(storageKey).toBeTruthy();
      expect(files[0].fileRecord).toEqual(shown);
      expect(files[0].signedUrl).toMatch(/^http/);
    }
  });

  test('a secret rotation answers the new secret and when the previous one stops, to a MEMBER', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
    });
    const answer = await call(emu.url, 'POST', `/api/plugins/${plugin.id}/webhook-secret/rotate`, {
      bearer: TOKENS.member,
      body: { graceSeconds: 60 },
    });
    expect(answer.status).toBe(200);
    const stored = emulatorInternals(emu).db.plugins.get(plugin.id)!;
    expect(answer.body.data).toEqual({
      id: plugin.id,
      webhookSecret: stored.webhookSecret,
      previousSecretExpiresAt: stored.previousWebhookSecretExpiresAt,
    });
    expect(
      (
        await call(emu.url, 'POST', `/api/plugins/${plugin.id}/webhook-secret/rotate`, {
          bearer: TOKENS.viewer,
          body: {},
        })
      ).status,
    ).toBe(403);
  });

  test('the fault settings are the dispatcher’s, every rule included', async () => {
    const put = await adminCall(emu, 'PUT', '/_emulator/faults', {
      body: {
        profile: 'duplicate=0.5,delay=10-20ms,reorder=0.1:50,drop=0.2,timeout-after-answer=0.3',
        seed: 7,
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data).toEqual(emu.faults.get());
    expect(put.body.data.rules.reorder).toEqual({ probability: 0.1, windowMs: 50 });
    expect((await adminCall(emu, 'GET', '/_emulator/faults')).body.data).toEqual(emu.faults.get());
    await adminCall(emu, 'PUT', '/_emulator/faults', { body: { profile: 'off' } });
  });

  test('an export holds every stored record as it is, secrets (hashed or signing) included', async () => {
    const exported = (await adminCall(emu, 'GET', '/_emulator/export')).body.data;
    expect(exported).toMatchObject({ format: 'plugsmith-emulator-export', version: 1 });
    for (const collection of Object.values(emulatorInternals(emu).db)) {
      expect(exported.collections[collection.name], collection.name).toEqual(
        JSON.parse(JSON.stringify([...collection.values()])),
      );
    }
    const imported = await adminCall(emu, 'POST', '/_emulator/import', { body: exported });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.data.imported).toBe(true);
    expect(imported.body.data.counts.plugins).toBe(exported.collections.plugins.length);
  });
});
