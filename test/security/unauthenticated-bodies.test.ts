import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { RawConnection } from '../kit/raw-http.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator, until } from '../kit/index.js';

// startEmulator rather than the kit's emulator() in places: this file tests the connection bounds a start refuses.

// Issue 41, item 9: one client with no credential held every connection slot. 260 connections
// trickling 1 MB bodies to /_emulator/dashboard/session (the sign-in, which needs no credential) at
// 9 KB/s, above the slow-body rate, made health answer 503 to 17 of 17 probes for 45 s. A body read
// without a credential a guard recognised is now at most 16 KiB, must arrive within 2 s plus a second
// per 2 KiB, and such bodies hold at most maxConnections - reservedConnections connections together:
// health, callers with a credential and new connections keep the rest. Real sockets, real servers.

/** A sign-in request whose head declares `length` bytes of JSON body, and the first bytes of it. */
async function signInHead(emu: Emulator, length: number): Promise<RawConnection> {
  const connection = await RawConnection.open(emu.url);
  onTestFinished(() => connection.close());
  const host = new URL(emu.url).host;
  connection.write(
    `POST /_emulator/dashboard/session HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"code":"`,
  );
  return connection;
}

/** Writes a byte to each open connection every `everyMs` until stopped (a trickle well above a byte a second). */
function trickle(connections: Iterable<RawConnection>, everyMs = 100): () => Promise<void> {
  let going = true;
  const running = (async () => {
    while (going) {
      for (const connection of connections)
        if (!connection.socket.destroyed) connection.write('a'.repeat(64));
      await sleep(everyMs);
    }
  })();
  return async () => {
    going = false;
    await running;
  };
}

async function health(emu: Emulator): Promise<number> {
  const res = await fetch(`${emu.url}/_emulator/health`);
  await res.arrayBuffer();
  return res.status;
}

async function adminCharacters(emu: Emulator): Promise<number> {
  const res = await fetch(`${emu.url}/_emulator/characters`, { headers: emu.adminHeaders });
  await res.arrayBuffer();
  return res.status;
}

/** Health probes, one after another, for `ms`: every status. */
async function probeHealth(emu: Emulator, ms: number): Promise<number[]> {
  const statuses: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    statuses.push(await health(emu));
    await sleep(50);
  }
  return statuses;
}

describe('bodies from callers without a credential', { timeout: 60_000 }, () => {
  it("the issue's shape: 260 connections trickling 1 MB sign-in bodies, reopened when closed; each is refused 413 at once, and health answers throughout", async () => {
    const emu = await emulator();
    // As the attacker did: whenever the emulator closes one, another takes its place.
    const answers: number[] = [];
    const connections = new Set<RawConnection>();
    /** The attackers that sent a head so far. */
    const connected = new Set<number>();
    let attacking = true;
    const attack = async (_: unknown, attacker: number) => {
      while (attacking) {
        const connection = await signInHead(emu, 1_000_000);
        connections.add(connection);
        connected.add(attacker);
        if (!attacking) connection.close();
        await connection.closed;
        connections.delete(connection);
        const answer = await connection.response(100).catch(() => null);
        if (answer) answers.push(answer.status);
        await sleep(100);
      }
    };
    const attackers = Array.from({ length: 260 }, attack);
    const stop = trickle(connections, 200);
    try {
      // Health is probed under the attack in full swing: once every attacker has sent a head.
      await until('every attacker to connect', () => connected.size === attackers.length, {
        timeoutMs: 30_000,
        explain: () => `${connected.size} attackers connected, ${answers.length} answers`,
      });
      const statuses = await probeHealth(emu, 1_500);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(await adminCharacters(emu)).toBe(200);
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.every((status) => status === 413)).toBe(true);
    } finally {
      attacking = false;
      await stop();
      for (const connection of connections) connection.close();
      await Promise.all(attackers);
    }
  });

  it('small trickled sign-in bodies hold at most maxConnections - reservedConnections; the next is a 503, and health and the admin API answer', async () => {
    const emu = await emulator({
      connections: { maxConnections: 20, reservedConnections: 5, headersTimeoutMs: 60_000 },
      unauthenticatedBodies: { graceMs: 60_000 },
    });
    const held: RawConnection[] = [];
    for (let i = 0; i < 15; i++) held.push(await signInHead(emu, 16_000));
    const stop = trickle(held, 200);
    try {
      // Each head is served in turn: health answering means the 15 before it reached the bound.
      expect(await health(emu)).toBe(200);
      const refused = await signInHead(emu, 16_000);
      const answer = await refused.response();
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body).error.message).toContain('without a credential');
      expect(await refused.endsWithin(5_000)).toBe(true);
      // The reserve: probes and a caller with the admin credential are served while the 15 trickle.
      const statuses = await probeHealth(emu, 800);
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(await adminCharacters(emu)).toBe(200);
      expect(held.every((connection) => !connection.socket.destroyed)).toBe(true);
    } finally {
      await stop();
    }
  });

  it('a body within the cap that trickles slower than the minimum rate is answered 408 and closed', async () => {
    const emu = await emulator({
      unauthenticatedBodies: { graceMs: 100, minBytesPerSecond: 1_000 },
    });
    const connection = await signInHead(emu, 10_000);
    // 64 bytes every 100 ms: 640 B/s, under the minimum rate (a short grace and a high rate keep the test quick).
    const stop = trickle([connection], 100);
    try {
      const answer = await connection.response(15_000);
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body).error.error).toBe('REQUEST_TIMEOUT');
      expect(await connection.endsWithin(5_000)).toBe(true);
    } finally {
      await stop();
    }
  });

  it('a chunked body without a credential (no declared length) is refused 413', async () => {
    const emu = await emulator();
    const connection = await RawConnection.open(emu.url);
    onTestFinished(() => connection.close());
    connection.write(
      `POST /_emulator/dashboard/session HTTP/1.1\r\nhost: ${new URL(emu.url).host}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"cod\r\n`,
    );
    const answer = await connection.response();
    expect(answer.status).toBe(413);
  });

  it('a sign-in at a normal pace still works, and callers with a credential still send large bodies', async () => {
    const emu = await emulator();
    const code = emulatorInternals(emu).admin.logins.mintCode();
    const signIn = await fetch(`${emu.url}/_emulator/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(signIn.status).toBe(200);
    const session = ((await signIn.json()) as { data: { session: string } }).data.session;
    expect(session).toBeTruthy();
    // 200 KB with a token: read and judged (a 400 for the unknown field), not refused for its size.
    const large = await fetch(`${emu.url}/api/orgs/org_dev/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'big', padding: 'x'.repeat(200_000) }),
    });
    await large.arrayBuffer();
    expect(large.status).toBe(400);
    // The same size without a credential, to a URL no route has: refused before it is read.
    const stranger = await fetch(`${emu.url}/nothing-here`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(200_000) }),
    });
    await stranger.arrayBuffer();
    expect(stranger.status).toBe(413);
    await expect(
      startEmulator({ connections: { maxConnections: 10, reservedConnections: 10 } }),
    ).rejects.toThrow(/reservedConnections/);
  });
});
