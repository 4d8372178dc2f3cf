import { call, adminCall } from '../../kit/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { deepJson } from './deep-json.js';
import { exported } from '../../kit/store-export.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

let emu: Emulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** An import file holding one plugin record nested `depth` levels deep. */
function deepImport(depth: number): string {
  return `{"format":"plugsmith-emulator-export","version":1,"collections":{"plugins":[{"id":"plg_deep","nested":${deepJson(depth)}}]}}`;
}

describe('a refused import changes nothing', () => {
  test('a record nested 20,000 levels deep is a 400 and the store, also after a restart, is as before', async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugsmith-import-'));
    emu = await startEmulator({ dataDir: dir });
    const repo = await call(emu.url, 'POST', '/api/repositories', {
      token: emu.token!,
      body: { orgId: 'org_dev', name: 'kept' },
    });
    expect(repo.status).toBe(201);
    const before = await exported(emu);

    const res = await adminCall(emu, 'POST', '/_emulator/import', {
      rawBody: deepImport(20_000),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.ok).toBe(false);

    expect(await exported(emu)).toEqual(before);
    expect(
      (await call(emu.url, 'GET', `/api/repositories/${repo.body.data.id}`, { token: emu.token! }))
        .status,
    ).toBe(200);

    await emu.close();
    emu = await startEmulator({ dataDir: dir });
    expect(await exported(emu)).toEqual(before);
    expect(
      (await call(emu.url, 'GET', `/api/repositories/${repo.body.data.id}`, { token: emu.token! }))
        .status,
    ).toBe(200);
  });

  test('a valid import still replaces the whole store in one step', async () => {
    emu = await startEmulator();
    const before = await exported(emu);
    const file = {
      format: 'plugsmith-emulator-export',
      version: 1,
      collections: { ...before, repositories: [] },
    };
    const res = await adminCall(emu, 'POST', '/_emulator/import', { body: file });
    expect(res.status).toBe(200);
    expect(res.body.data.counts.repositories).toBe(0);
    expect((await exported(emu)).repositories).toEqual([]);
    expect((await exported(emu)).users).toEqual(before.users);
  });
});
