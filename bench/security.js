// Issue 15's event-loop bound: health latency while regular-expression attacks (ReDoS) are sent,
// as a ratio to health latency with no attack. A backtracking engine let one `^(a+)+$` against
// thirty `a` and a `!` block every request for over 30 s; on RE2 the ratio stays near 1.
import { request } from 'undici';
import { median, percentile, startServer } from './lib.js';

const EVIL = '^(a+)+$';
const ATTACK = `${'a'.repeat(30)}!`;

async function healthLatencies(url, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    const res = await request(`${url}/_emulator/health`);
    await res.body.dump();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

async function json(url, method, headers, body) {
  const res = await request(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const parsed = await res.body.json();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${JSON.stringify(parsed)}`);
  return parsed.data;
}

export default async function security({ quick }) {
  const rows = [];
  const emu = await startServer('emulator.js');
  try {
    const count = quick ? 100 : 300;
    await healthLatencies(emu.url, 50); // warm-up
    const baseline = await healthLatencies(emu.url, count);
    rows.push({ name: 'health, idle (baseline)', p50: median(baseline), p99: percentile(baseline, 99), ratio: 1 });

    // A character whose script line is catastrophic for a backtracking engine, and a conversation with it.
    const admin = emu.adminToken ? { 'x-plugsmith-admin': emu.adminToken } : {};
    const character = await json(`${emu.url}/_emulator/characters`, 'POST', admin, { orgId: emu.orgId, name: 'ReDoS', script: [{ match: EVIL, reply: 'x' }], packetIntervalMs: 0 });
    const messaging = { authorization: `Bearer ${emu.apiKey}` };
    const conversation = await json(`${emu.messagingUrl}/conversations`, 'POST', messaging, { characterId: character.id });
    let attacking = true;
    const attacks = (async () => {
      while (attacking) await json(`${emu.messagingUrl}/conversations/${conversation.id}/messages`, 'POST', messaging, { content: ATTACK });
    })();
    const during = await healthLatencies(emu.url, count);
    attacking = false;
    await attacks;
    rows.push({ name: 'health during ReDoS attempts (script match)', p50: median(during), p99: percentile(during, 99), ratio: percentile(during, 99) / percentile(baseline, 99), target: 'p99 < 100 ms' });
  } finally {
    await emu.stop();
  }
  return rows;
}
