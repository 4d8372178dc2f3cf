import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER, type Emulator } from '../../emulator/index.js';
import { DashboardLogins } from '../../emulator/admin/dashboard-logins.js';
import { request } from 'undici';
import { call, emulator, type ApiResponse } from '../kit/index.js';
import { emulatorInternals } from '../../emulator/internals.js';

// The dashboard signs in with single-use login codes (in the URL's fragment) traded for a session
// token in the answer's body (no cookie); the token, sent as the x-plugsmith-session header, then
// counts as the admin credential, on this emulator only. Cookies are never a credential. Everything
// else the admin guard refuses stays refused: other origins, other hosts, CORS-simple bodies.

let emu: Emulator;
let other: Emulator;

beforeAll(async () => {
  [emu, other] = await Promise.all([emulator(), emulator()]);
});

function codeOf(link: string): string {
  return /#login=([A-Za-z0-9_-]+)$/.exec(link)![1];
}

/** The session headers (`{ 'x-plugsmith-session': <token> }`) of a fresh sign-in to `target`. */
async function session(target: Emulator): Promise<Record<string, string>> {
  const signedIn: ApiResponse = await call(target.url, 'POST', '/_emulator/dashboard/session', {
    body: { code: codeOf(target.dashboardLink()) },
  });
  expect(signedIn.status).toBe(200);
  return { [SESSION_HEADER]: signedIn.body.data.session };
}

describe('login codes', () => {
  it('a code works exactly once; the answer is the workspace and a session token in the body, and no cookie', async () => {
    const code = codeOf(emu.dashboardLink());
    const first = await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      managementUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      token: emu.token,
      apiKey: emu.apiKey,
      orgId: emu.orgId,
      storeId: emu.storeId,
      persistent: false,
      dataDir: null,
    });
    expect(first.body.data.session).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(first.headers['set-cookie']).toBeUndefined();

    const again = await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code } });
    expect(again.status).toBe(401);
    expect(again.body.error.message).toContain('plugsmith emulator dashboard');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('the link printed at start works once too; an unknown code is 401, a malformed one 400, a form or text body 415', async () => {
    const started = codeOf(emu.dashboardUrl);
    expect(
      (await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code: started } }))
        .status,
    ).toBe(200);
    expect(
      (await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code: started } }))
        .status,
    ).toBe(401);
    expect(
      (
        await call(emu.url, 'POST', '/_emulator/dashboard/session', {
          body: { code: 'never-minted-code-000000000000' },
        })
      ).status,
    ).toBe(401);
    const malformed = await call(emu.url, 'POST', '/_emulator/dashboard/session', {
      body: { code: 'a b' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].path).toEqual(['code']);
    const fresh = codeOf(emu.dashboardLink());
    for (const contentType of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await call(emu.url, 'POST', '/_emulator/dashboard/session', {
        rawBody: `code=${fresh}`,
        headers: { 'content-type': contentType },
      });
      expect(res.status, contentType).toBe(415);
    }
    // Those refusals did not spend it.
    expect(
      (await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code: fresh } }))
        .status,
    ).toBe(200);
  });

  it('a code of one emulator does not sign in to another', async () => {
    const code = codeOf(emu.dashboardLink());
    expect(
      (await call(other.url, 'POST', '/_emulator/dashboard/session', { body: { code } })).status,
    ).toBe(401);
  });

  it('minting a link needs the admin credential (or a session), and the link never carries the admin token', async () => {
    expect((await call(emu.url, 'POST', '/_emulator/dashboard/login-links')).status).toBe(401);
    const minted = await call(emu.url, 'POST', '/_emulator/dashboard/login-links', {
      headers: emu.adminHeaders,
    });
    expect(minted.status).toBe(200);
    expect(minted.body.data.dashboardUrl).toMatch(
      new RegExp(`^${emu.url}/_emulator/dashboard/#login=`),
    );
    for (const link of [minted.body.data.dashboardUrl, emu.dashboardUrl, emu.dashboardLink()])
      expect(link).not.toContain(emu.adminToken);
  });
});

describe('the session header', () => {
  it('counts as the admin credential on /_emulator until signed out; DELETE ends the session it names', async () => {
    const headers = await session(emu);
    const bystander = await session(emu);
    expect((await call(emu.url, 'GET', '/_emulator/overview')).status).toBe(401);
    expect((await call(emu.url, 'GET', '/_emulator/overview', { headers })).status).toBe(200);
    expect(
      (await call(emu.url, 'GET', '/_emulator/dashboard/session', { headers })).body.data.storeId,
    ).toBe(emu.storeId);
    const out = await call(emu.url, 'DELETE', '/_emulator/dashboard/session', { headers });
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']).toBeUndefined();
    const refused = await call(emu.url, 'GET', '/_emulator/overview', { headers });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toContain('plugsmith emulator dashboard');
    expect((await call(emu.url, 'GET', '/_emulator/dashboard/session', { headers })).status).toBe(
      401,
    );
    // Only the named session ended.
    expect((await call(emu.url, 'GET', '/_emulator/overview', { headers: bystander })).status).toBe(
      200,
    );
  });

  it('is refused in a cookie: cookies are never a credential, under any name', async () => {
    const token = (await session(emu))[SESSION_HEADER];
    for (const name of [
      `plugsmith_dashboard_${new URL(emu.url).port}`,
      SESSION_HEADER,
      'session',
    ]) {
      const res = await call(emu.url, 'GET', '/_emulator/export', {
        headers: { cookie: `${name}=${token}` },
      });
      expect(res.status, name).toBe(401);
    }
  });

  it('of one emulator does not work on another emulator', async () => {
    const headers = await session(emu);
    expect((await call(other.url, 'GET', '/_emulator/dashboard/session', { headers })).status).toBe(
      401,
    );
    expect((await call(other.url, 'GET', '/_emulator/export', { headers })).status).toBe(401);
  });

  it('a wrong session header is refused even beside nothing else, and a wrong admin header is not rescued by a live session', async () => {
    const headers = await session(emu);
    expect(
      (
        await call(emu.url, 'GET', '/_emulator/overview', {
          headers: { [SESSION_HEADER]: 'not-a-session' },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call(emu.url, 'GET', '/_emulator/overview', {
          headers: { ...headers, 'x-plugsmith-admin': 'psa_wrong' },
        })
      ).status,
    ).toBe(401);
  });

  it('does not open state changes to web pages: other origins, other sites and CORS-simple bodies are refused even with it', async () => {
    const headers = await session(emu);
    const agents = emulatorInternals(emu).db.agents.size;
    const attempts: Array<Record<string, string>> = [
      { origin: 'http://127.0.0.1:1' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const extra of attempts) {
      const res = await call(emu.url, 'POST', '/_emulator/agents', {
        headers: { ...headers, ...extra },
        body: { orgId: emu.orgId, name: 'Intruder' },
      });
      expect(res.status, JSON.stringify(extra)).toBe(403);
      expect(
        (
          await call(emu.url, 'GET', '/_emulator/dashboard/session', {
            headers: { ...headers, ...extra },
          })
        ).status,
      ).toBe(403);
    }
    const form = await call(emu.url, 'POST', '/_emulator/agents', {
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: 'name=Intruder',
    });
    expect(form.status).toBe(415);
    expect(emulatorInternals(emu).db.agents.size).toBe(agents);
  });
});

describe('login codes and sessions in memory', () => {
  it('stay bounded: past the cap the oldest code and the oldest session are evicted', () => {
    const logins = new DashboardLogins({ maxCodes: 3, maxSessions: 2 });
    const codes = Array.from({ length: 5 }, () => logins.mintCode());
    expect(logins.counts().codes).toBe(3);
    // The two oldest codes are gone; the newest three work.
    expect(logins.redeem(codes[0])).toBeNull();
    expect(logins.redeem(codes[1])).toBeNull();
    const sessions = codes.slice(2).map((code) => logins.redeem(code));
    expect(sessions.every((s) => typeof s === 'string')).toBe(true);
    expect(logins.counts()).toEqual({ codes: 0, sessions: 2 });
    expect(logins.isSession(sessions[0]!)).toBe(false);
    expect(logins.isSession(sessions[1]!)).toBe(true);
    expect(logins.isSession(sessions[2]!)).toBe(true);
  });

  it('an emulator keeps at most its default caps however many links are minted and traded', async () => {
    const emuLogins = emulatorInternals(emu).admin.logins;
    for (let i = 0; i < 1_100; i++) emu.dashboardLink();
    expect(emuLogins.counts().codes).toBeLessThanOrEqual(1_000);
    for (let i = 0; i < 120; i++) await session(emu);
    expect(emuLogins.counts().sessions).toBeLessThanOrEqual(100);
  });
});

describe('the dashboard files', () => {
  it('are served without a credential, with a strict CSP, no framing and no Referer; /_emulator/dashboard redirects to the folder', async () => {
    const redirect = await call(emu.url, 'GET', '/_emulator/dashboard');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('/_emulator/dashboard/');
    for (const [path, type] of [
      ['/_emulator/dashboard/', 'text/html'],
      ['/_emulator/dashboard/app.js', 'text/javascript'],
      ['/_emulator/dashboard/app.css', 'text/css'],
    ]) {
      const res = await call(emu.url, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(String(res.headers['content-type'])).toContain(type);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(`connect-src 'self' ${emu.messagingUrl}`);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
      expect(text).not.toContain(emu.adminToken);
      expect(text).not.toContain(emu.token!);
    }
  });

  it("answer only under the emulator's own names (DNS rebinding) and to no other origin", async () => {
    const port = new URL(emu.url).port;
    for (const path of [
      '/_emulator/dashboard/',
      '/_emulator/dashboard/app.js',
      '/_emulator/dashboard/session',
    ]) {
      const rebound = await call(emu.url, 'GET', path, {
        headers: { host: `attacker.example:${port}` },
      });
      expect(rebound.status, path).toBe(403);
      const framedBy = await call(emu.url, 'GET', path, {
        headers: { origin: 'http://attacker.example' },
      });
      expect(framedBy.status, path).toBe(403);
    }
    const code = codeOf(emu.dashboardLink());
    const reboundLogin = await call(emu.url, 'POST', '/_emulator/dashboard/session', {
      headers: { host: `attacker.example:${port}` },
      body: { code },
    });
    expect(reboundLogin.status).toBe(403);
    expect(reboundLogin.body.data).toBeUndefined();
    // The refused attempt did not spend the code.
    expect(
      (await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code } })).status,
    ).toBe(200);
  });
});

describe('messaging CORS', () => {
  const dashboardOrigin = () => emu.url;
  it("answers the dashboard's origin (preflight included) and no other", async () => {
    const preflight = await call(emu.messagingUrl, 'OPTIONS', '/conversations', {
      headers: {
        origin: dashboardOrigin(),
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(dashboardOrigin());
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('authorization');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('last-event-id');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();

    const created = await call(emu.messagingUrl, 'POST', '/conversations', {
      headers: { origin: dashboardOrigin(), authorization: `Bearer ${emu.apiKey}` },
      body: { characterId: 'char_nova' },
    });
    expect(created.status).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe(dashboardOrigin());
    const conversation = `/conversations/${created.body.data.id}`;
    // The conversation stream writes its own head: the header is there too.
    const events = await request(`${emu.messagingUrl}${conversation}/events`, {
      headers: { origin: dashboardOrigin(), authorization: `Bearer ${emu.apiKey}` },
    });
    expect(events.statusCode).toBe(200);
    expect(events.headers['access-control-allow-origin']).toBe(dashboardOrigin());
    events.body.destroy();

    const port = new URL(emu.url).port;
    for (const origin of [
      'http://attacker.example',
      `http://attacker.example:${port}`,
      emu.messagingUrl,
      'http://127.0.0.1:1',
      'null',
      `https://127.0.0.1:${port}`,
    ]) {
      const pre = await call(emu.messagingUrl, 'OPTIONS', '/conversations', {
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(pre.headers['access-control-allow-origin'], origin).toBeUndefined();
      const get = await call(emu.messagingUrl, 'GET', conversation, {
        headers: { origin, authorization: `Bearer ${emu.apiKey}` },
      });
      expect(get.status).toBe(200);
      expect(get.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
    // localhost is the same emulator under another of its names.
    const localhost = await call(emu.messagingUrl, 'OPTIONS', '/conversations', {
      headers: { origin: `http://localhost:${port}`, 'access-control-request-method': 'GET' },
    });
    expect(localhost.headers['access-control-allow-origin']).toBe(`http://localhost:${port}`);
  });
});
