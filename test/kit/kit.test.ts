import { request } from 'undici';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { admin, api, cli, emulator, emulatorEnv, receiver, refuse, type Receiver } from './index.js';
import { spawnedCli } from './spawn.js';

// The kit owns what it starts: inside a test, until the test ends; outside one, until the file's tests end.

let shared: Emulator;
beforeAll(async () => {
  shared = await emulator();
});

describe('the test kit', () => {
  let early: Receiver;
  test('a receiver started in a test records requests, answers challenges, and is closed when the test ends', async () => {
    early = await receiver();
    const answer = await request(early.webhookUrl, { method: 'POST', body: JSON.stringify({ type: 'WEBHOOK_CHALLENGE', data: { challenge: 'c1' } }) });
    expect(await answer.body.json()).toEqual({ challenge: 'c1' });
    expect((await early.next((r) => r.json?.type === 'WEBHOOK_CHALLENGE')).url).toBe('/webhook');
    const refusing = await receiver(refuse(503));
    expect((await request(refusing.url)).statusCode).toBe(503);
  });

  test('... and the next test finds it closed, while the file\'s emulator still answers', async () => {
    await expect(request(early.url)).rejects.toThrow();
    expect((await api(shared).get('/api/plugins/plg_missing')).status).toBe(404);
    expect((await api(shared, { token: null }).get('/api/plugins/plg_missing')).status).toBe(401);
    expect((await admin(shared).get('/_emulator/health')).status).toBe(200);
  });

  test('cli() runs a command in this process, with the outcome of the spawned CLI', async () => {
    const plugsmith = await cli(emulatorEnv(shared));
    const child = await spawnedCli(emulatorEnv(shared));
    const inside = await plugsmith.run(['plugins', 'get', 'plg_missing']);
    const spawned = await child.run(['plugins', 'get', 'plg_missing']);
    expect(inside.code).not.toBe(0);
    expect(inside.code).toBe(spawned.code);
    expect(inside.stderr.trim()).toBe(spawned.stderr.trim());
    const list = ['plugins', 'list', '--org', shared.orgId!];
    expect(await plugsmith.json(list)).toEqual(await child.json(list));
  });

  test('the run has a home of its own', () => {
    expect(process.env.HOME).toContain('plugsmith-test-home-');
    expect(process.env.XDG_CACHE_HOME).toBe(`${process.env.HOME}/.cache`);
    expect(process.env.PLUGSMITH_TEST_RUN).toMatch(/^[0-9a-f-]{36}$/);
  });
});
