import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { request as httpRequest } from 'undici';
import { beforeAll, describe, expect, it, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { buildManagementApp } from '../../emulator/app.js';
import { adminRefusal, isThisMachine, ownHostNames } from '../../emulator/admin/guard.js';
import { call } from '../kit/http.js';
import { spawnCli, tempConfigDir } from '../kit/cli-process.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

// Two ways the admin guard locked out the people it serves:
// - `--host <this machine's LAN address>`: a CLI on the same machine connects to that address and
//   arrives from it, not from 127.0.0.1; only loopback peers counted as this machine.
// - `--allow-remote-admin` behind a DNS name (a container reaching `emulator:4010` or
//   `host.docker.internal`): the Host allow-list had no way to add a name. `--admin-host` adds one.

/** A non-loopback IPv4 address of this machine, when it has one. */
function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const i of list ?? []) if (!i.internal && i.family === 'IPv4') return i.address;
  return undefined;
}

const access = { token: 'psa_guard_hosts_test_token', allowRemote: false, host: '192.0.2.10' };
const request = (remoteAddress: string, host = '192.0.2.10:4010') => ({
  method: 'GET',
  path: '/_emulator/export',
  takesNoCredential: false,
  remoteAddress,
  headers: { host, 'x-plugsmith-admin': access.token },
});

describe("a peer on one of this machine's own addresses is this machine", () => {
  const own = () => new Set(['192.0.2.10', 'fe80::1']);

  it('is served when it connects from an interface address (IPv4, IPv4-mapped, IPv6 with a zone)', () => {
    const names = ownHostNames(access.host);
    for (const peer of ['192.0.2.10', '::ffff:192.0.2.10', 'fe80::1%eth0']) {
      expect(adminRefusal(access, names, request(peer), own), peer).toBeNull();
    }
    expect(isThisMachine('127.0.0.1', own)).toBe(true);
  });

  it('another machine on the same network is still refused', () => {
    const refusal = adminRefusal(access, ownHostNames(access.host), request('192.0.2.11'), own);
    expect(refusal?.message).toMatch(/--allow-remote-admin/);
  });

  it("the real guard counts the real interface addresses (inject from this machine's LAN address)", async () => {
    const lan = lanAddress() ?? '127.0.0.1';
    const emu = await emulator({ host: '127.0.0.1' });
    const app: FastifyInstance = await buildManagementApp(emulatorInternals(emu));
    try {
      const res = await app.inject({
        method: 'GET',
        url: '/_emulator/export',
        headers: { host: '127.0.0.1', ...emu.adminHeaders },
        remoteAddress: lan,
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const stranger = await app.inject({
        method: 'GET',
        url: '/_emulator/export',
        headers: { host: '127.0.0.1', ...emu.adminHeaders },
        remoteAddress: '203.0.113.7',
      });
      expect(stranger.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });
});

describe('--admin-host names the admin API answers under', () => {
  let emu: Emulator;
  let plain: Emulator;
  beforeAll(async () => {
    emu = await emulator({
      allowRemoteAdmin: true,
      adminHosts: ['emulator', 'Host.Docker.Internal'],
    });
    plain = await emulator({ allowRemoteAdmin: true });
  });

  it('a Host of a name given is served; without the option it is refused with a message naming --admin-host', async () => {
    const port = new URL(emu.url).port;
    for (const host of [`emulator:${port}`, `host.docker.internal:${port}`]) {
      const res = await call(emu.url, 'GET', '/_emulator/export', {
        headers: { host, ...emu.adminHeaders },
      });
      expect(res.status, host).toBe(200);
    }
    const refused = await call(plain.url, 'GET', '/_emulator/export', {
      headers: { host: `emulator:${new URL(plain.url).port}`, ...plain.adminHeaders },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('--admin-host emulator');
  });

  it('other names are still refused (DNS rebinding), and Origin must still equal the Host', async () => {
    const port = new URL(emu.url).port;
    expect(
      (
        await call(emu.url, 'GET', '/_emulator/export', {
          headers: { host: `attacker.example:${port}`, ...emu.adminHeaders },
        })
      ).status,
    ).toBe(403);
    const crossOrigin = await call(emu.url, 'GET', '/_emulator/export', {
      headers: { host: `emulator:${port}`, origin: 'http://attacker.example', ...emu.adminHeaders },
    });
    expect(crossOrigin.status).toBe(403);
    const sameOrigin = await call(emu.url, 'GET', '/_emulator/export', {
      headers: { host: `emulator:${port}`, origin: `http://emulator:${port}`, ...emu.adminHeaders },
    });
    expect(sameOrigin.status).toBe(200);
  });

  it('a webhook aimed at an --admin-host name is refused like one aimed at 127.0.0.1 (no SSRF by the new name)', async () => {
    const port = new URL(emu.url).port;
    const res = await call(emu.url, 'POST', '/api/orgs/org_dev/plugins', {
      token: `Bearer ${emu.token}`,
      body: {
        name: 'ssrf',
        type: 'EVENT_HANDLER',
        events: [],
        scopes: [],
        webhookUrl: `http://emulator:${port}/_emulator/reset`,
      },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(JSON.stringify(res.body)).toContain("emulator's own /_emulator");
  });
});

test('`plugsmith emulator start --admin-host a,b --admin-host c` serves the admin API under each name', async () => {
  const config = await tempConfigDir();
  const proc = spawnCli(
    [
      'emulator',
      'start',
      '--port',
      '0',
      '--messaging-port',
      '0',
      '--in-memory',
      '--json',
      '--admin-host',
      'emulator,host.docker.internal',
      '--admin-host',
      'box.lan',
    ],
    {
      env: { PLUGSMITH_CONFIG_DIR: config },
    },
  );
  try {
    const state = JSON.parse(await proc.nextLine()) as { url: string; adminToken: string };
    const port = new URL(state.url).port;
    for (const name of ['emulator', 'host.docker.internal', 'box.lan', 'other.lan']) {
      const res = await httpRequest(`${state.url}/_emulator/export`, {
        headers: { host: `${name}:${port}`, 'x-plugsmith-admin': state.adminToken },
      });
      await res.body.dump();
      expect(res.statusCode, name).toBe(name === 'other.lan' ? 403 : 200);
    }
  } finally {
    await proc.stop('SIGTERM');
  }
});
