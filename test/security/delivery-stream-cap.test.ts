import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import type { Emulator } from '../../emulator/index.js';
import { call } from '../kit/http.js';
import { WebhookServer } from '../kit/webhook-server.js';
import { emulator } from '../kit/index.js';

// A client of /_emulator/deliveries/stream that never reads must not make the emulator buffer
// without limit: once more than 16 MB behind it is dropped, while a client that reads keeps its stream.

const EVENTS = 48;
const PAD = 'x'.repeat(900_000); // each attempt notice carries the event: ~0.9 MB, 48 of them ~43 MB

let emu: Emulator;
let hook: WebhookServer;

beforeAll(async () => {
  emu = await emulator();
  hook = await WebhookServer.start();
});

afterAll(async () => {
  await hook?.close();
});

/** A raw HTTP client of the stream that reads the response head, then stops reading. */
async function stalledReader(pluginId: string): Promise<Socket> {
  const { port } = new URL(emu.url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `GET /_emulator/deliveries/stream?pluginId=${pluginId} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-plugsmith-admin: ${emu.adminToken}\r\n\r\n`,
  );
  const [head] = (await once(socket, 'data')) as [Buffer];
  expect(head.toString()).toMatch(/^HTTP\/1\.1 200/);
  socket.pause();
  return socket;
}

function countAttempts(text: string): number {
  return text.split('\nevent: attempt\n').length - 1;
}

it('drops a stream client that stops reading once it is more than 16 MB behind; a reading client gets every attempt', async () => {
  const created = await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
    token: emu.token!,
    body: {
      name: 'Big events',
      type: 'EVENT_HANDLER',
      events: [],
      scopes: [],
      webhookUrl: hook.url,
    },
  });
  expect(created.status).toBe(201);
  const pluginId = created.body.data.id as string;

  const stalled = await stalledReader(pluginId);
  const reading = await request(`${emu.url}/_emulator/deliveries/stream?pluginId=${pluginId}`, {
    headers: emu.adminHeaders,
    bodyTimeout: 0,
  });
  expect(reading.statusCode).toBe(200);
  let readText = '';
  let readCount = 0;
  let allRead!: () => void;
  const everyAttempt = new Promise<void>((resolve) => (allRead = resolve));
  reading.body.on('data', (chunk: Buffer) => {
    readText += chunk.toString('utf8');
    // Count whole frames only, and keep just the unfinished tail.
    const end = readText.lastIndexOf('\n\n');
    if (end < 0) return;
    readCount += countAttempts('\n' + readText.slice(0, end + 2));
    readText = readText.slice(end + 2);
    if (readCount >= EVENTS) allRead();
  });

  for (let i = 0; i < EVENTS; i++) {
    const emitted = await call(emu.url, 'POST', '/_emulator/events', {
      headers: emu.adminHeaders,
      body: { type: 'WEBHOOK_CHALLENGE', pluginId, data: { challenge: `c${i}`, pad: PAD } },
    });
    expect(emitted.status).toBe(201);
  }
  await everyAttempt;
  expect(readCount).toBe(EVENTS);

  // Reading now, the stalled client finds its stream cut short: the emulator dropped what it had buffered.
  let stalledText = '';
  stalled.on('data', (chunk: Buffer) => (stalledText += chunk.toString('latin1')));
  stalled.on('error', () => undefined); // a reset is one way of being dropped
  stalled.resume();
  await once(stalled, 'close');
  expect(countAttempts(stalledText)).toBeLessThan(EVENTS);

  reading.body.destroy();
});
