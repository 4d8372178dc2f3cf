import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { call } from '../helpers/http.js';
import { openDashboard } from './helpers/browser.js';

// AUDIT: browsers do not keep cookies apart by port. The dashboard's session is a cookie for the
// emulator's host name on Path=/_emulator, so the browser attaches it to every request it makes to
// ANY port of that host under /_emulator: another local web server (a second emulator, a plugin's
// dev server, any localhost app with an XSS) whose page fetches its own /_emulator/... path
// receives the session secret in its Cookie header and can replay it as the admin credential.

describe('the dashboard session (audit)', () => {
  it('is not sent by the browser to another server on the same host name', async () => {
    const emu = await startEmulator();
    onTestFinished(() => emu.close());

    // The other local server: its page fetches its own /_emulator path; it records what it receives.
    const received: IncomingHttpHeaders[] = [];
    const server: Server = createServer((request, response) => {
      if (request.url?.startsWith('/_emulator/')) {
        received.push(request.headers);
        response.writeHead(204).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>other local app</title><script>fetch('/_emulator/anything').then(() => { window.done = true; }, () => { window.done = true; });</script>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const otherUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const { page } = await openDashboard(emu); // signed in: the session cookie is in the browser
    await page.goto(otherUrl);
    await page.waitForFunction('window.done === true');

    const cookie = received.map((h) => h.cookie ?? '').join('; ');
    const stolen = /plugsmith_dashboard_\d+=[A-Za-z0-9_-]+/.exec(cookie)?.[0];
    // What the other server could do with it, if it got it: read the whole store.
    if (stolen) {
      const replay = await call(emu.url, 'GET', '/_emulator/export', { headers: { cookie: stolen } });
      expect(replay.status, `a server on another port of 127.0.0.1 received ${stolen} and replaying it read /_emulator/export`).not.toBe(200);
    }
    expect(stolen, 'the dashboard session cookie reached another server on the same host').toBeUndefined();
  });
});
