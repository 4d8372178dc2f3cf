import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ConversationStreams,
  MAX_BUFFERED_BYTES,
} from '../../../emulator/messaging/conversation-streams.js';
import { until } from '../../kit/index.js';

// A real HTTP server whose responses become SSE streams, and raw TCP clients: one that reads
// everything, one that never reads (its kernel buffers fill, then the server's do).

let server: Server | undefined;
let streams: ConversationStreams | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  streams?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
});

async function start(): Promise<{ port: number; opened: Promise<ServerResponse>[] }> {
  streams = new ConversationStreams();
  const waiters: Array<(r: ServerResponse) => void> = [];
  const opened: Promise<ServerResponse>[] = [];
  for (let i = 0; i < 2; i++) opened.push(new Promise((resolve) => waiters.push(resolve)));
  server = createServer((_request, response) => {
    streams!.open('conv_1', response, []);
    waiters.shift()?.(response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, opened };
}

function client(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.write('GET /events HTTP/1.1\r\nhost: x\r\n\r\n');
  sockets.push(socket);
  return socket;
}

describe('ConversationStreams', () => {
  it('drops a client that falls more than 16 MB behind, and keeps serving the one that reads', async () => {
    const { port, opened } = await start();
    const reader = client(port);
    let received = 0;
    let tail = '';
    reader.on('data', (chunk: Buffer) => {
      received += chunk.length;
      tail = (tail + chunk.toString('latin1')).slice(-200);
    });
    await opened[0];
    const stalled = client(port);
    stalled.pause();
    const slow = await opened[1];
    expect(streams!.count('conv_1')).toBe(2);

    const frame = `event: packet\ndata: ${JSON.stringify({ text: 'x'.repeat(1024 * 1024) })}\n\n`;
    let sent = 0;
    while (!slow.destroyed && sent < 100) {
      streams!.broadcast('conv_1', frame);
      sent++;
      // Let the sockets drain between frames, as between a reply's packets.
      await sleep(5);
    }
    // Dropped once more than 16 MB waited for it (its kernel buffers hold a few MB more).
    expect(slow.destroyed).toBe(true);
    expect(sent * frame.length).toBeGreaterThan(MAX_BUFFERED_BYTES);
    await sleep(20);
    expect(streams!.count('conv_1')).toBe(1);

    // The reading client got every frame, and still gets new ones.
    streams!.broadcast('conv_1', 'event: done\ndata: {}\n\n');
    await until('the new frame', () => tail.includes('event: done'), {
      timeoutMs: 10_000,
      intervalMs: 10,
    });
    expect(tail).toContain('event: done');
    expect(received).toBeGreaterThanOrEqual(sent * frame.length);
  });
});
