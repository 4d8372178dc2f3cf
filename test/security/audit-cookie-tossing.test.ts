import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { call } from '../helpers/http.js';

// AUDIT: any page served from another port of the same host name may set cookies for that host
// (cookies ignore ports), e.g. `plugsmith_dashboard_<port>=junk; Path=/_emulator/overview`. The
// browser sends the more specific path first, and DashboardLogins.sessionOf takes only the first
// cookie of the name, so the real session is ignored and the signed-in dashboard gets 401s (a
// denial of service from any local page). Fix: accept the request when any value of that cookie
// name is a live session.

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

describe('the session cookie beside a tossed cookie of the same name (audit)', () => {
  it('still signs the request in', async () => {
    const code = /#login=(.+)$/.exec(emu.dashboardLink())![1];
    const signedIn = await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: { code } });
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0];
    const name = cookie.split('=')[0];
    expect((await call(emu.url, 'GET', '/_emulator/overview', { headers: { cookie } })).status).toBe(200);
    const res = await call(emu.url, 'GET', '/_emulator/overview', { headers: { cookie: `${name}=tossed-by-another-port; ${cookie}` } });
    expect(res.status).toBe(200);
  });
});
