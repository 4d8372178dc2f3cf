import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { buildManagementApp } from '../../emulator/app.js';
import { emulatorInternals } from '../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file tests what close() does.

/** Status, the headers a HEAD answer must share with GET, and the body's length. */
async function answer(url: string, method: 'GET' | 'HEAD', headers: Record<string, string>) {
  const res = await request(url, { method, headers });
  const body = await res.body.arrayBuffer();
  return {
    status: res.statusCode,
    type: res.headers['content-type'],
    length: res.headers['content-length'],
    bodyBytes: body.byteLength,
  };
}

describe('the apps of an emulator', () => {
  let emu: Emulator;
  let pluginId: string;
  let conversationId: string;
  beforeAll(async () => {
    emu = await startEmulator();
    const auth = { authorization: emu.token!, 'content-type': 'application/json' };
    const plugin = await request(`${emu.url}/api/orgs/${emu.orgId}/plugins`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        name: 'head-check',
        description: 'd',
        type: 'DATA_PROVIDER',
        isPublic: true,
        webhookUrl: 'http://127.0.0.1:9/hook',
        tags: ['x'],
      }),
    });
    pluginId = ((await plugin.body.json()) as { data: { id: string } }).data.id;
    const conversation = await request(`${emu.messagingUrl}/conversations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ characterId: emulatorInternals(emu).config.credentials.characterId }),
    });
    expect(conversation.statusCode).toBe(201);
    conversationId = ((await conversation.body.json()) as { data: { id: string } }).data.id;
  });
  afterAll(() => emu.close());

  it('HEAD on a GET route of each API answers as GET does (status, type, length), without a body', async () => {
    const user = { authorization: emu.token! };
    const cases: Array<[string, Record<string, string>]> = [
      [`${emu.url}/api/plugins/${pluginId}`, user],
      [`${emu.url}/api/plugins/marketplace?tags=x`, {}],
      [`${emu.url}/api/plugins/plg_missing`, user],
      [`${emu.url}/api/plugins/${pluginId}`, {}],
      [`${emu.url}/_emulator/health`, {}],
      [`${emu.url}/_emulator/overview`, emu.adminHeaders],
      [`${emu.url}/_emulator/overview`, {}],
      [`${emu.url}/_emulator/dashboard/app.css`, {}],
      [
        `${emu.messagingUrl}/conversations/${conversationId}`,
        { authorization: `Bearer ${emu.apiKey}` },
      ],
    ];
    for (const [url, headers] of cases) {
      const get = await answer(url, 'GET', headers);
      const head = await answer(url, 'HEAD', headers);
      expect(get.bodyBytes, url).toBeGreaterThan(0);
      expect(head, url).toEqual({ ...get, bodyBytes: 0 });
      expect(Number(head.length), url).toBe(get.bodyBytes);
    }
  });

  it('HEAD is no more than GET: a route without GET is a 405 for HEAD, with Allow naming its methods', async () => {
    const res = await request(`${emu.url}/api/tokens`, {
      method: 'HEAD',
      headers: { authorization: emu.token! },
    });
    await res.body.dump();
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('the admin API, built on its first request', () => {
  it('a start registers none of its routes in the management app; a call still reaches them, behind the guard', async () => {
    const emu = await startEmulator();
    const app = await buildManagementApp(emulatorInternals(emu));
    try {
      await app.ready();
      expect(app.hasRoute({ method: 'GET', url: '/_emulator/overview' })).toBe(false);
      expect(app.hasRoute({ method: 'GET', url: '/api/plugins/:pluginId' })).toBe(true);
      // The first request of this app builds the admin API: without the credential it is refused, with it answered.
      const refused = await app.inject({
        method: 'GET',
        url: '/_emulator/overview',
        headers: { host: '127.0.0.1' },
      });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ ok: false, error: { error: 'UNAUTHORIZED' } });
      const answered = await app.inject({
        method: 'GET',
        url: '/_emulator/overview',
        headers: { host: '127.0.0.1', ...emu.adminHeaders },
      });
      expect(answered.statusCode).toBe(200);
      expect(answered.json()).toMatchObject({ ok: true, data: { managementUrl: emu.url } });
    } finally {
      await app.close();
      await emu.close();
    }
  });

  it('requests that come while it is being built all wait for it: reads, a body-carrying write, a refusal and a 404', async () => {
    const emu = await startEmulator();
    try {
      const admin = { ...emu.adminHeaders, 'content-type': 'application/json' };
      const calls = await Promise.all([
        ...Array.from({ length: 8 }, () =>
          request(`${emu.url}/_emulator/tokens`, { headers: emu.adminHeaders }),
        ),
        request(`${emu.url}/_emulator/agents`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ orgId: emu.orgId, name: 'Built meanwhile' }),
        }),
        request(`${emu.url}/_emulator/agents`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ orgId: emu.orgId, name: 5 }),
        }),
        request(`${emu.url}/_emulator/export`),
        request(`${emu.url}/_emulator/no-such-route`, { headers: emu.adminHeaders }),
      ]);
      const answers = await Promise.all(
        calls.map(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as any })),
      );
      expect(answers.slice(0, 8).map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(answers[8]).toMatchObject({
        status: 201,
        body: { ok: true, data: { name: 'Built meanwhile' } },
      });
      expect(answers[9]).toMatchObject({
        status: 400,
        body: { ok: false, error: { error: 'VALIDATION_ERROR' } },
      });
      expect(answers[9].body.error.details.length).toBeGreaterThan(0);
      expect(answers[10]).toMatchObject({
        status: 401,
        body: { ok: false, error: { error: 'UNAUTHORIZED' } },
      });
      expect(answers[11]).toMatchObject({
        status: 404,
        body: { ok: false, error: { error: 'NOT_FOUND' } },
      });
    } finally {
      await emu.close();
    }
  });

  it('close() ends its open delivery streams and resolves', async () => {
    const emu = await startEmulator();
    const port = Number(new URL(emu.url).port);
    const socket = connect(port, '127.0.0.1');
    const head = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n\r\n')) resolve(text);
      });
      socket.on('error', reject);
    });
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `GET /_emulator/deliveries/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-plugsmith-admin: ${emu.adminToken}\r\n\r\n`,
    );
    expect(await head).toMatch(/^HTTP\/1\.1 200/);
    await emu.close();
    await ended;
  });
});
