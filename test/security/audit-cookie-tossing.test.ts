import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER, type Emulator } from '../../emulator/index.js';
import { call, emulator } from '../kit/index.js';

// AUDIT (fixed by design): any page served from another port of the same host name may set cookies
// for that host (cookies ignore ports), e.g. `plugsmith_dashboard_<port>=junk; Path=/_emulator/overview`,
// and a cookie the browser holds for the host is sent to every port of it. The dashboard's session
// is therefore no cookie: the sign-in answers a token in its body, the page sends it as the
// x-plugsmith-session header, and the guard never reads a cookie. A tossed cookie changes nothing,
// a session in a cookie is no credential, and one emulator's session is unknown to another.

let emu: Emulator;
let other: Emulator;
beforeAll(async () => {
  [emu, other] = await Promise.all([emulator(), emulator()]);
});

async function signIn(target: Emulator): Promise<string> {
  const code = /#login=(.+)$/.exec(target.dashboardLink())![1];
  const signedIn = await call(target.url, 'POST', '/_emulator/dashboard/session', {
    body: { code },
  });
  expect(signedIn.status).toBe(200);
  expect(signedIn.headers['set-cookie'], 'the sign-in sets no cookie').toBeUndefined();
  return signedIn.body.data.session;
}

describe('the dashboard session beside tossed cookies (audit)', () => {
  it('a tossed cookie of any name changes nothing: the header session still signs the request in', async () => {
    const token = await signIn(emu);
    const port = new URL(emu.url).port;
    const tossed = `plugsmith_dashboard_${port}=tossed-by-another-port; ${SESSION_HEADER}=junk; session=junk`;
    expect(
      (await call(emu.url, 'GET', '/_emulator/overview', { headers: { [SESSION_HEADER]: token } }))
        .status,
    ).toBe(200);
    expect(
      (
        await call(emu.url, 'GET', '/_emulator/overview', {
          headers: { [SESSION_HEADER]: token, cookie: tossed },
        })
      ).status,
    ).toBe(200);
  });

  it('the session in a cookie is no credential (what another port of the host would receive from a browser)', async () => {
    const token = await signIn(emu);
    const port = new URL(emu.url).port;
    for (const cookie of [`plugsmith_dashboard_${port}=${token}`, `${SESSION_HEADER}=${token}`]) {
      const replay = await call(emu.url, 'GET', '/_emulator/export', { headers: { cookie } });
      expect(replay.status, cookie.split('=')[0]).toBe(401);
    }
  });

  it('a session token of one emulator is refused by another', async () => {
    const token = await signIn(emu);
    expect(
      (await call(other.url, 'GET', '/_emulator/export', { headers: { [SESSION_HEADER]: token } }))
        .status,
    ).toBe(401);
    expect(
      (
        await call(other.url, 'GET', '/_emulator/dashboard/session', {
          headers: { [SESSION_HEADER]: token },
        })
      ).status,
    ).toBe(401);
  });
});
