import { call, emulator } from '../kit/index.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { KEY_A, messagingSeed, newConversation } from '../kit/messaging.js';

// startEmulator rather than the kit's emulator() in places: this file tests the bounds a start refuses, and one in a child process.

// Issue 36: without any credential, idle and partial-header connections were never timed out (still
// open after 98 s), so under `ulimit -n 1024` 1,100 idle sockets locked out health and every API; and
// one API key opened 20,175 conversation streams until the process ran out of descriptors. Real
// sockets against a real emulator, with short bounds (`connections`, `maxStreamsPerApiKey`).

/** A raw TCP connection to `url`'s port; destroyed when the test finishes. */
async function rawSocket(url: string): Promise<Socket & { received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  onTestFinished(() => void socket.destroy());
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return Object.assign(socket, { received: () => received });
}

const closed = (socket: Socket) =>
  socket.closed ? Promise.resolve() : once(socket, 'close').then(() => undefined);

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

describe('connections without a complete request are timed out', { timeout: 30_000 }, () => {
  it('a connection that sends nothing is closed after headersTimeoutMs, on both servers', async () => {
    const emu = await emulator({ connections: { headersTimeoutMs: 300 } });
    for (const url of [emu.url, emu.messagingUrl]) {
      const socket = await rawSocket(url);
      await closed(socket);
      expect(socket.received()).toBe('');
    }
  });

  it('a connection that stops half-way through its headers gets a 408 and is closed', async () => {
    const emu = await emulator({ connections: { headersTimeoutMs: 300 } });
    const socket = await rawSocket(emu.url);
    socket.write('GET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    await closed(socket);
    expect(socket.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(socket.received()).toContain('REQUEST_TIMEOUT');
  });

  it('a kept-alive connection idle after its answer is closed the same way', async () => {
    const emu = await emulator({ connections: { headersTimeoutMs: 300 } });
    const socket = await rawSocket(emu.url);
    socket.write('GET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await closed(socket);
    expect(socket.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('the default is 15 s, advertised in Keep-Alive: a request sent at once is answered', async () => {
    const emu = await emulator({});
    const res = await fetch(`${emu.url}/_emulator/health`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    // Clients are told how long an idle connection is kept: no longer than the bound keeps it.
    expect(res.headers.get('keep-alive')).toBe('timeout=15');
    await expect(startEmulator({ connections: { headersTimeoutMs: 0 } })).rejects.toThrow(
      /connections\.headersTimeoutMs/,
    );
  });
});

describe('connections per server are capped', { timeout: 30_000 }, () => {
  it('past maxConnections the oldest idle connection makes room: health and the admin API answer', async () => {
    const emu = await emulator({ connections: { maxConnections: 10, headersTimeoutMs: 60_000 } });
    const idle: Array<Socket & { received: () => string }> = [];
    for (let i = 0; i < 30; i++) idle.push(await rawSocket(emu.url));
    // Each new connection past the cap closed an older idle one.
    await Promise.all(idle.slice(0, 20).map(closed));
    expect(idle.filter((socket) => !socket.closed).length).toBeLessThanOrEqual(10);
    expect(await health(emu)).toBe(200);
    expect(await adminCharacters(emu)).toBe(200);
  });
});

describe('the default cap follows the descriptor limit', { timeout: 60_000 }, () => {
  it('under ulimit -n 128, 200 idle connections leave health and the admin API answering', async () => {
    // A real emulator process (the built one) whose descriptors are few: a fixed cap of 256 would let idle sockets take them all.
    const entry = resolve(import.meta.dirname, '../../dist/emulator/index.js');
    const script = `const { startEmulator } = await import(${JSON.stringify(entry)}); const emu = await startEmulator({ log: () => {} }); console.log(JSON.stringify({ url: emu.url, admin: emu.adminHeaders })); setInterval(() => {}, 1000);`;
    const child = spawn(
      'sh',
      ['-c', 'ulimit -n 128 && exec "$0" --input-type=module -e "$1"', process.execPath, script],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    onTestFinished(() => void child.kill('SIGKILL'));
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const started = JSON.parse(line) as { url: string; admin: Record<string, string> };
    const sockets: Socket[] = [];
    for (let i = 0; i < 200; i++) sockets.push(await rawSocket(started.url));
    const res = await fetch(`${started.url}/_emulator/health`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    const admin = await fetch(`${started.url}/_emulator/characters`, { headers: started.admin });
    await admin.arrayBuffer();
    expect(admin.status).toBe(200);
  });
});

describe('conversation streams per API key are capped', { timeout: 30_000 }, () => {
  it('one stream past maxStreamsPerApiKey is a 429 naming the cap; health and the admin API answer', async () => {
    const emu = await emulator({ seed: messagingSeed(), messaging: { maxStreamsPerApiKey: 3 } });
    const conversationId = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const streams: AbortController[] = [];
    onTestFinished(() => {
      for (const stream of streams) stream.abort();
    });
    const open = async () => {
      const controller = new AbortController();
      streams.push(controller);
      const res = await fetch(`${emu.messagingUrl}/conversations/${conversationId}/events`, {
        headers: { authorization: `Bearer ${KEY_A}` },
        signal: controller.signal,
      });
      return res;
    };
    for (let i = 0; i < 3; i++) expect((await open()).status).toBe(200);
    const refused = await open();
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { error: string; message: string } };
    expect(body.error.error).toBe('TOO_MANY_REQUESTS');
    expect(body.error.message).toContain('MAX_STREAMS_PER_API_KEY');
    expect(body.error.message).toContain('3 open conversation streams');
    expect(await health(emu)).toBe(200);
    expect(await adminCharacters(emu)).toBe(200);
    // Messages still flow for the key on plain requests, and a closed stream frees its place.
    expect(
      (
        await call(emu.messagingUrl, 'GET', `/conversations/${conversationId}/messages`, {
          bearer: KEY_A,
        })
      ).status,
    ).toBe(200);
    streams[0].abort();
    let reopened = 0;
    for (let attempt = 0; attempt < 50 && reopened !== 200; attempt++) {
      await new Promise((r) => setTimeout(r, 50));
      const res = await open();
      reopened = res.status;
      if (res.status !== 200) await res.arrayBuffer();
    }
    expect(reopened).toBe(200);
  });
});
