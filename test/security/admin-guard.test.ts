import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../../emulator/index.js';
import { buildManagementApp } from '../../emulator/app.js';
import { call } from '../kit/http.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

// The admin surface (/_emulator) belongs to the person running the emulator and their tools. A
// web page (CSRF, DNS rebinding), a caller without the credential and a remote peer are refused.

let emu: Emulator;
let remoteEmu: Emulator;

beforeAll(async () => {
  emu = await emulator();
  remoteEmu = await emulator({
    allowRemoteAdmin: true,
    adminToken: 'psa_fixed_token_for_remote_tests',
  });
});

/** Records a reset would remove: an agent made through the admin API itself. */
async function marker(): Promise<string> {
  const id = `agent_marker_${Math.random().toString(36).slice(2, 8)}`;
  const made = await call(emu.url, 'POST', '/_emulator/agents', {
    headers: emu.adminHeaders,
    body: { id, orgId: emu.orgId, name: 'Marker' },
  });
  expect(made.status).toBe(201);
  return id;
}

/** The OpenAPI document's operations: method, path (`{id}` as `:id`) and the credentials it declares. */
async function operations(): Promise<
  Array<{ method: string; path: string; security: Array<Record<string, string[]>> }>
> {
  const document = await call(emu.url, 'GET', '/_emulator/openapi.json');
  expect(document.status).toBe(200);
  const found = [];
  for (const [path, item] of Object.entries<Record<string, { security?: unknown }>>(
    document.body.paths,
  )) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      found.push({
        method: method.toUpperCase(),
        path: path.replace(/\{(\w+)\}/g, ':$1'),
        security: operation.security as Array<Record<string, string[]>>,
      });
    }
  }
  return found;
}

/** A path of the document with a well-formed id of nothing for each parameter (the guard answers before any lookup). */
const fill = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => `${name}_none`);

describe('the admin credential', () => {
  it('is required on every admin route of the OpenAPI document: none or a wrong one is a 401 that names the header', async () => {
    const keys = emulatorInternals(emu).db.apiKeys.size;
    const agents = emulatorInternals(emu).db.agents.size;
    const guarded = (await operations()).filter(
      (operation) => operation.path.startsWith('/_emulator') && operation.security.length > 0,
    );
    // Some 40 operations: the document lists every admin route, a new one included.
    expect(guarded.length).toBeGreaterThan(35);
    for (const route of guarded) {
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      for (const headers of [
        {},
        { 'x-plugsmith-admin': 'psa_wrong' },
        { 'x-plugsmith-admin': emu.adminToken.slice(0, -1) },
      ] as Array<Record<string, string>>) {
        const res = await call(emu.url, route.method, fill(route.path), { body, headers });
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error.error).toBe('UNAUTHORIZED');
        expect(res.body.error.message).toContain('x-plugsmith-admin');
      }
    }
    expect(emulatorInternals(emu).db.apiKeys.size).toBe(keys);
    expect(emulatorInternals(emu).db.agents.size).toBe(agents);
  });

  it('is not asked of the routes that declare `security: []`, and only those: the marketplace, health and the sign-in', async () => {
    const open = (await operations()).filter((operation) => operation.security.length === 0);
    expect(open.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'GET /_emulator/health',
      'GET /api/plugins/marketplace',
      'POST /_emulator/dashboard/session',
    ]);
    for (const { path } of open.filter((operation) => operation.method === 'GET')) {
      for (const verb of ['GET', 'HEAD']) {
        const res = await call(emu.url, verb, path);
        expect(res.status, `${verb} ${path}`).toBe(200);
      }
    }
    // The sign-in's credential is the login code in its body: a wrong one is refused as such.
    const signIn = await call(emu.url, 'POST', '/_emulator/dashboard/session', {
      body: { code: 'not-a-login-code' },
    });
    expect(signIn.status).toBe(401);
    expect(signIn.body.error.message).not.toContain('x-plugsmith-admin');
    // The document itself (not among its own operations) takes none either.
    expect((await call(emu.url, 'GET', '/_emulator/openapi.json')).status).toBe(200);
  });

  it('opens every admin route to the right one; health needs none', async () => {
    expect(emu.adminToken).toMatch(/^psa_/);
    expect((await call(emu.url, 'GET', '/_emulator/health')).status).toBe(200);
    expect(
      (await call(emu.url, 'GET', '/_emulator/export', { headers: emu.adminHeaders })).status,
    ).toBe(200);
    expect(
      (
        await call(emu.url, 'POST', '/_emulator/api-keys', {
          headers: emu.adminHeaders,
          body: { orgId: emu.orgId },
        })
      ).status,
    ).toBe(201);
  });
});

describe('web pages', () => {
  it('CSRF: a cross-origin text/plain POST /_emulator/reset resets nothing, with or without the credential', async () => {
    const id = await marker();
    for (const headers of [
      { origin: 'https://evil.example', 'content-type': 'text/plain' },
      { origin: 'https://evil.example', 'content-type': 'text/plain', ...emu.adminHeaders },
      { origin: 'null', 'content-type': 'text/plain', ...emu.adminHeaders },
      { origin: 'https://evil.example', 'content-type': 'application/json', ...emu.adminHeaders },
    ]) {
      const res = await call(emu.url, 'POST', '/_emulator/reset', { headers, rawBody: '{}' });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.error).toBe('FORBIDDEN');
      expect(res.body.error.message).toMatch(/Origin/);
    }
    expect(emulatorInternals(emu).db.agents.has(id)).toBe(true);
  });

  it("a state change in a CORS-simple content type is refused even from the emulator's own origin", async () => {
    const id = await marker();
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'TEXT/PLAIN; charset=utf-8',
    ]) {
      const res = await call(emu.url, 'POST', '/_emulator/reset', {
        headers: { 'content-type': contentType, origin: emu.url, ...emu.adminHeaders },
        rawBody: '{}',
      });
      expect(res.status, contentType).toBe(415);
      expect(res.body.error.message).toMatch(/application\/json/);
    }
    expect(emulatorInternals(emu).db.agents.has(id)).toBe(true);
    // The emulator's own origin with JSON is fine.
    expect(
      (
        await call(emu.url, 'GET', '/_emulator/agents', {
          headers: { origin: emu.url, ...emu.adminHeaders },
        })
      ).status,
    ).toBe(200);
  });

  it('DNS rebinding: GET /_emulator/export under another Host name gives no secrets, with or without the credential', async () => {
    const port = new URL(emu.url).port;
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      `127.0.0.1.nip.io:${port}`,
      `127.evil.example:${port}`,
    ]) {
      for (const headers of [{ host }, { host, ...emu.adminHeaders }]) {
        const res = await call(emu.url, 'GET', '/_emulator/export', { headers });
        expect(res.status, host).toBe(403);
        expect(res.body.error.message).toMatch(/Host/);
        expect(JSON.stringify(res.body)).not.toMatch(/whsec_|psi_/);
      }
    }
    // The emulator's own names pass.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect(
        (
          await call(emu.url, 'GET', '/_emulator/export', {
            headers: { host, ...emu.adminHeaders },
          })
        ).status,
        host,
      ).toBe(200);
    }
  });

  it('a request a browser marks as cross-site is refused', async () => {
    const res = await call(emu.url, 'GET', '/_emulator/export', {
      headers: { 'sec-fetch-site': 'cross-site', ...emu.adminHeaders },
    });
    expect(res.status).toBe(403);
  });
});

describe('remote peers', () => {
  // inject() runs the real app with the peer address a remote machine would have.
  let app: FastifyInstance;
  let openApp: FastifyInstance;
  beforeAll(async () => {
    app = await buildManagementApp(emulatorInternals(emu));
    openApp = await buildManagementApp(emulatorInternals(remoteEmu));
  });
  afterAll(async () => {
    await app?.close();
    await openApp?.close();
  });

  const remote = (
    target: FastifyInstance,
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    payload?: unknown,
  ) =>
    target.inject({
      method,
      url,
      headers: { host: '127.0.0.1', ...headers },
      payload: payload as never,
      remoteAddress: '203.0.113.7',
    });

  it('cannot mint a messaging key (or call any admin route) unless the emulator opted in', async () => {
    const keys = emulatorInternals(emu).db.apiKeys.size;
    // Every admin operation but the two that hold no data (health, below, and the document), the dashboard's sign-in included.
    const admin = (await operations()).filter(
      (operation) =>
        operation.path.startsWith('/_emulator') &&
        !(operation.security.length === 0 && operation.method === 'GET'),
    );
    expect(admin.map(({ method, path }) => `${method} ${path}`)).toContain(
      'POST /_emulator/dashboard/session',
    );
    for (const route of admin) {
      const body =
        route.method === 'GET' || route.method === 'DELETE' ? undefined : { orgId: emu.orgId };
      const res = await remote(
        app,
        route.method as 'GET',
        fill(route.path),
        emu.adminHeaders,
        body,
      );
      expect(res.statusCode, `${route.method} ${route.path}`).toBe(403);
      expect(res.json().error.message).toMatch(/--allow-remote-admin/);
    }
    expect(emulatorInternals(emu).db.apiKeys.size).toBe(keys);
    // Health holds no data: any peer may ask.
    expect((await remote(app, 'GET', '/_emulator/health', {})).statusCode).toBe(200);
  });

  it('with allowRemoteAdmin a remote peer is served, still only with the credential', async () => {
    expect(remoteEmu.adminToken).toBe('psa_fixed_token_for_remote_tests');
    expect(
      (await remote(openApp, 'POST', '/_emulator/api-keys', {}, { orgId: remoteEmu.orgId }))
        .statusCode,
    ).toBe(401);
    const minted = await remote(openApp, 'POST', '/_emulator/api-keys', remoteEmu.adminHeaders, {
      orgId: remoteEmu.orgId,
    });
    expect(minted.statusCode).toBe(201);
  });
});
