import { readdir } from 'node:fs/promises';
import { Agent, request } from 'undici';
import { call } from '../kit/index.js';
import { describe, expect, it } from 'vitest';
import { startEmulator, temporaryDataDir } from '../../emulator/index.js';

describe('startEmulator()', () => {
  it('is in memory on free ports with the default workspace; reset() goes back to the seed with the same credentials; close() stops both servers', async () => {
    const emu = await startEmulator();
    const closed = { done: false };
    try {
      expect(emu.dataDir).toBeNull();
      expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(emu.messagingUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(emu.url).not.toBe(emu.messagingUrl);
      expect(emu.orgId).toBe('org_dev');
      const health = await request(`${emu.url}/_emulator/health`);
      expect(await health.body.json()).toMatchObject({ data: { persistent: false } });

      const created = await call(emu.url, 'POST', `/api/orgs/org_dev/repositories`, {
        token: emu.token!,
        body: {
          name: 'scratch',
        },
      });
      expect(created.status).toBe(201);
      await emu.reset();
      expect(
        (
          await call(emu.url, 'GET', `/api/repositories/${created.body.data.id}`, {
            token: emu.token!,
          })
        ).status,
      ).toBe(404);
      // The seed's records and credentials are back as they were.
      const listed = await call(emu.url, 'GET', `/api/orgs/org_dev/repositories`, {
        token: emu.token!,
      });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual(['repo_docs']);

      await emu.close();
      closed.done = true;
      // New connections: a kept-alive one may not have seen its close yet when close() resolves.
      const fresh = new Agent();
      await expect(
        request(`${emu.url}/_emulator/health`, { dispatcher: fresh }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(
        request(`${emu.messagingUrl}/conversations/x`, { dispatcher: fresh }),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await fresh.close();
    } finally {
      if (!closed.done) await emu.close();
    }
  });

  it('is durable with a dataDir: a second start on it sees the records', async () => {
    const dir = await temporaryDataDir();
    try {
      const first = await startEmulator({ dataDir: dir.dir });
      const created = await call(first.url, 'POST', '/api/orgs/org_dev/repositories', {
        token: first.token!,
        body: { name: 'kept' },
      });
      await first.close();
      expect((await readdir(dir.dir)).length).toBeGreaterThan(0);
      const second = await startEmulator({ dataDir: dir.dir });
      try {
        expect(second.dataDir).toBe(dir.dir);
        expect(
          (
            await call(second.url, 'GET', `/api/repositories/${created.body.data.id}`, {
              token: second.token!,
            })
          ).body.data,
        ).toMatchObject({ name: 'kept' });
      } finally {
        await second.close();
      }
    } finally {
      await dir.remove();
    }
  });

  it('refuses dataDir together with inMemory', async () => {
    await expect(startEmulator({ inMemory: true, dataDir: '/tmp/never-used' })).rejects.toThrow(
      /not both/,
    );
  });
});
