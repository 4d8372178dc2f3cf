// Issue 5's speed targets: POST of a user message to the first packet on the event stream
// (scripted engine, zero interval), and a 500-packet reply fanned out to 200 event-stream
// clients. The emulator runs in a child process; the clients run here.
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { median, percentile, startServer } from './lib.js';
import { apiClient, memoryStats } from './helpers/api.js';
import { countingClient, parsingClient } from './helpers/sse.js';

const SENT = 'CHARACTER_MESSAGE_SENT';

/** POSTs a user message; resolves when the API has answered (201). */
async function send(emu, conversationId, content) {
  const res = await request(`${emu.messagingUrl}/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'TEXT', content }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201)
    throw new Error(`POST message → ${res.statusCode}: ${text.slice(0, 300)}`);
}

export default async function messaging({ quick }) {
  const rows = [];
  const emu = await startServer('emulator-with.js', [JSON.stringify({})]);
  const opened = [];
  try {
    const admin = apiClient(emu.url, undefined, { 'x-plugsmith-admin': emu.adminToken });
    const chat = apiClient(emu.messagingUrl, `Bearer ${emu.apiKey}`);
    const packetSize = 10;
    const packets = 500;
    await admin('POST', '/_emulator/characters', {
      id: 'char_bench_fast',
      orgId: emu.orgId,
      name: 'Fast',
      fallbackReply: 'Tell me more, quickly.',
      packetSize: 8,
      packetIntervalMs: 0,
    });
    await admin('POST', '/_emulator/characters', {
      id: 'char_bench_long',
      orgId: emu.orgId,
      name: 'Long',
      fallbackReply: 'x'.repeat(packets * packetSize),
      packetSize,
      packetIntervalMs: 0,
    });

    // (a) POST → first packet on the stream, one client, sequential messages (each reply ends first).
    {
      const conversation = await chat('POST', '/conversations', { characterId: 'char_bench_fast' });
      const client = await parsingClient(
        `${emu.messagingUrl}/conversations/${conversation.id}/events`,
        emu.apiKey,
      );
      opened.push(client);
      const count = quick ? 100 : 200;
      const warmup = 30;
      const firsts = [];
      const answers = [];
      for (let i = 0; i < warmup + count; i++) {
        const first = client.next(SENT);
        const last = client.next(SENT, (d) => d.message.isStreaming === false);
        const t0 = performance.now();
        const answered = send(emu, conversation.id, `message ${i}`).then(() => performance.now());
        const [{ at }, answeredAt] = await Promise.all([first, answered, last]);
        if (i >= warmup) {
          firsts.push(at - t0);
          answers.push(answeredAt - t0);
        }
      }
      rows.push({
        name: `POST message answered (201), n=${count}`,
        p50: percentile(answers, 50),
        p99: percentile(answers, 99),
      });
      rows.push({
        name: `POST message → first packet on the stream, n=${count}`,
        p50: percentile(firsts, 50),
        p99: percentile(firsts, 99),
        target: 'p50 < 5 ms',
      });
    }

    // (b) 200 clients on one conversation, one reply of 500 packets (+ the final, empty one).
    {
      const clientsCount = 200;
      const conversation = await chat('POST', '/conversations', { characterId: 'char_bench_long' });
      const url = `${emu.messagingUrl}/conversations/${conversation.id}/events`;
      const clients = [];
      for (let i = 0; i < clientsCount; i += 20) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(20, clientsCount - i) }, () =>
            countingClient(url, emu.apiKey),
          ),
        );
        clients.push(...batch);
      }
      opened.push(...clients);
      await Promise.all(clients.map((c) => c.connected));
      const cpuBefore = (await memoryStats(emu.statsUrl)).cpuMs;
      const benchCpuBefore = process.cpuUsage();
      const allFinal = Promise.all(
        clients.map((c) => new Promise((resolve) => (c.state.onFinal = resolve))),
      );
      const t0 = performance.now();
      await send(emu, conversation.id, 'go');
      const answeredAt = performance.now();
      await Promise.race([
        allFinal,
        new Promise((_, reject) =>
          setTimeout(
            () => reject(new Error('not every client got the final packet within 60 s')),
            60_000,
          ),
        ),
      ]);
      const benchCpu = process.cpuUsage(benchCpuBefore);
      const cpuMs = (await memoryStats(emu.statsUrl)).cpuMs - cpuBefore;
      const frames = clients.map((c) => c.state.frames);
      const bytes = clients.reduce((n, c) => n + c.state.bytes, 0);
      const lastAt = Math.max(...clients.map((c) => c.state.finalAt));
      const firstAt = Math.max(...clients.map((c) => c.state.firstAt));
      const short = frames.filter((f) => f < packets).length;
      rows.push({
        name: `${clientsCount} clients × ${packets}-packet reply: POST → last packet at all clients (frames/client ${Math.min(...frames)}–${Math.max(...frames)}, ${short} short; ${(bytes / 1024 / 1024).toFixed(0)} MB sent; POST answered ${(answeredAt - t0).toFixed(1)} ms)`,
        ms: lastAt - t0,
        target: 'report',
      });
      rows.push({ name: `  POST → first packet at all ${clientsCount} clients`, ms: firstAt - t0 });
      rows.push({
        name: '  POST → final packet, median client',
        ms: median(clients.map((c) => c.state.finalAt - t0)),
      });
      rows.push({ name: '  emulator CPU for the reply (ms)', ms: cpuMs });
      rows.push({
        name: '  bench process CPU reading the 200 streams (ms)',
        ms: (benchCpu.user + benchCpu.system) / 1000,
      });
    }
  } finally {
    for (const c of opened) c.close();
    await emu.stop();
  }
  return rows;
}
