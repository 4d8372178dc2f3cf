import net from 'node:net';
import { beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { emulator } from '../kit/index.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

function raw(url: string, request: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

test.each([
  [
    'headers over 16 KiB',
    `GET /api/plugins/x HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    431,
  ],
  ['a URL over 16 KiB', `GET /api/plugins/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`, 431],
  ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
])('%s is answered in the error envelope on both APIs', async (_name, request, status) => {
  for (const url of [emu.url, emu.messagingUrl]) {
    const answer = await raw(url, request);
    expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ ok: false, error: { error: 'VALIDATION_ERROR' } });
  }
  const health = await fetch(`${emu.url}/_emulator/health`);
  expect(health.status).toBe(200);
});
