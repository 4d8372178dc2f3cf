import { call, adminCall } from '../../kit/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { RecordRefused } from '../../../emulator/store/store.js';
import { WebhookServer, verifiedDataProvider } from '../../kit/webhook-server.js';
import { deepJson } from './deep-json.js';
import { exported } from '../../kit/store-export.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

/**
 * A change that cannot be written to the journal (JSON.stringify overflows on ~4,200 levels) is
 * refused with a 400 before it touches memory: memory, the export and a restart agree.
 */
let emu: Emulator;
let dir: string;
let hook: WebhookServer;
let pluginId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-deep-'));
  hook = await WebhookServer.start();
  emu = await startEmulator({ dataDir: dir, delivery: { timeScale: 0.001 } });
  pluginId = await verifiedDataProvider(emu, hook);
});
afterAll(async () => {
  await emu.close();
  await hook.close();
  await rm(dir, { recursive: true, force: true });
});

async function restart(): Promise<void> {
  await emu.close();
  emu = await startEmulator({ dataDir: dir, delivery: { timeScale: 0.001 } });
}

describe('a change that cannot be serialized is refused with nothing applied', () => {
  test('a data provider whose inputs nest 5,000 levels: 400; the list, the export and a restart agree', async () => {
    const before = await exported(emu);
    const rawBody = `{"name":"deep","pluginId":"${pluginId}","events":[],"scopes":[],"inputs":${deepJson(5000)}}`;
    const res = await call(emu.url, 'POST', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);

    const list = await call(emu.url, 'GET', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
    });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const after = await exported(emu);
    expect(after.instances).toEqual(before.instances);
    expect(after.tokens).toEqual(before.tokens);
    await restart();
    expect((await exported(emu)).instances).toEqual(before.instances);
    expect(
      (
        await call(emu.url, 'GET', '/api/repositories/repo_docs/data-providers', {
          token: emu.token!,
        })
      ).body.data,
    ).toEqual([]);
  });

  test('inputs that fit an instance record but not its PLUGIN_INSTALLED delivery: 400, no instance, no token', async () => {
    const before = await exported(emu);
    // 998 levels: the instance record is 999 deep (stored), its delivery record 1,002 (refused).
    const rawBody = `{"name":"almost","pluginId":"${pluginId}","events":[],"scopes":[],"inputs":${deepJson(998)}}`;
    const res = await call(emu.url, 'POST', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const after = await exported(emu);
    expect(after.instances).toEqual(before.instances);
    expect(after.tokens).toEqual(before.tokens);
  });

  test('an event whose data nests 4,150 levels (inside the 1 MB body limit): 400, no delivery kept', async () => {
    const install = await call(emu.url, 'POST', '/api/repositories/repo_docs/data-providers', {
      token: emu.token!,
      body: { name: 'ok', pluginId, events: ['REPOSITORY_FILE_ADDED'], scopes: [] },
    });
    expect(install.status).toBe(201);
    const before = await exported(emu);
    const rawBody = `{"type":"REPOSITORY_FILE_ADDED","pluginId":"${pluginId}","pluginInstanceId":"${install.body.data.id}","data":${deepJson(4150)}}`;
    const res = await adminCall(emu, 'POST', '/_emulator/events', {
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);

    // The delivery log and the export still answer, and hold what they held.
    expect((await adminCall(emu, 'GET', '/_emulator/deliveries')).status).toBe(200);
    const after = await exported(emu);
    expect(after.deliveries.map((d) => (d as { id: string }).id)).toEqual(
      before.deliveries.map((d) => (d as { id: string }).id),
    );
    await restart();
    expect((await exported(emu)).deliveries.length).toBe(before.deliveries.length);
  });

  test('through the store itself: a refused record leaves memory and the journal as they were, and so does its whole batch', async () => {
    const { db, store } = emulatorInternals(emu);
    const deep = JSON.parse(deepJson(5000));
    const size = db.repositories.size;
    const record = {
      id: 'repo_deep',
      orgId: 'org_dev',
      name: 'deep',
      description: '',
      nested: deep,
      createdAt: '',
      updatedAt: '',
    };
    expect(() => db.repositories.put(record as never)).toThrow(RecordRefused);
    expect(db.repositories.has('repo_deep')).toBe(false);

    // In a batch, the good change made before the bad one is not applied either.
    const good = {
      id: 'repo_good',
      orgId: 'org_dev',
      name: 'good',
      description: '',
      createdAt: '',
      updatedAt: '',
    };
    await expect(
      store.atomically(() => {
        void db.repositories.put(good);
        void db.repositories.put(record as never);
      }),
    ).rejects.toBeInstanceOf(RecordRefused);
    expect(db.repositories.has('repo_good')).toBe(false);
    expect(db.repositories.size).toBe(size);
    await restart();
    expect(emulatorInternals(emu).db.repositories.has('repo_good')).toBe(false);
    expect(emulatorInternals(emu).db.repositories.size).toBe(size);
  });
});
