// Issue 41's "Done when": health p99 under 100 ms during each attack. The emulator runs in its own
// process with its defaults; this process attacks it and probes GET /_emulator/health meanwhile.
// - slow bodies (item 9): 260 connections trickling 1 MB bodies to /_emulator/dashboard/session at
//   9 KB/s each, reconnecting whenever one is closed (before: 503 to 17 of 17 probes for 45 s);
//   then the same with 16,000-byte bodies (under the cap for callers without a credential) at just
//   above its minimum rate, so that they hold their connections as long as they may.
// - validation work (item 8): installs whose inputs carry a 990 KB string against `minLength` (or
//   `format: byte`) applied 420 times through nested $refs, sent back to back (before: 3.6 s and
//   1.3 s each, health p99 3.5 s).
// Run: npm run bench -- hostile (after npm run build).
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { request } from 'undici';
import { percentile, median, startServer } from './lib.js';

const BUDGET_MS = 100;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Health latencies (ms) and non-200 answers, probing one after another for `ms`. */
async function probeHealth(url, ms) {
  const latencies = [];
  let failed = 0;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const start = process.hrtime.bigint();
    try {
      const res = await request(`${url}/_emulator/health`, { reset: true });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
    } catch {
      failed++;
    }
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    await sleep(20);
  }
  return { latencies, failed };
}

/** Idle health p99 of this run: rows carry their p99 as a ratio to it (the machine's own load shows there). */
let idleP99;

function healthRow(name, { latencies, failed }) {
  const p99 = percentile(latencies, 99);
  idleP99 ??= p99;
  return {
    name: `${name}: ${latencies.length} health probes, ${failed} not 200`,
    p50: median(latencies),
    p99,
    ratio: p99 / idleP99,
    budget: `health p99 < ${BUDGET_MS} ms, every probe 200`,
    met: p99 < BUDGET_MS && failed === 0,
  };
}

/**
 * Keeps `count` connections sending sign-in bodies that declare `length` bytes, `bytesPerTick` every 100 ms each; a connection
 * the emulator closes is opened again. Returns a stop function and what the emulator answered.
 */
function slowBodyAttack(url, count, length, bytesPerTick) {
  const { hostname, port } = new URL(url);
  const answers = new Map();
  const sockets = new Set();
  let going = true;
  const open = () => {
    if (!going) return;
    const socket = connect(Number(port), hostname);
    sockets.add(socket);
    let sent = 0;
    let heard = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      heard += chunk.toString('latin1');
    });
    socket.on('connect', () => {
      socket.write(
        `POST /_emulator/dashboard/session HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`,
      );
    });
    socket.on('close', () => {
      sockets.delete(socket);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(heard)?.[1] ?? 'closed';
      answers.set(status, (answers.get(status) ?? 0) + 1);
      // Like an attacker, come back: a second later, so that the figure is about held connections, not a connection flood.
      setTimeout(open, 1_000);
    });
    socket.sent = () => sent;
    socket.tick = () => {
      if (socket.destroyed || socket.connecting) return;
      const n = Math.min(bytesPerTick, length - sent);
      if (n <= 0) return;
      socket.write('a'.repeat(n));
      sent += n;
    };
  };
  for (let i = 0; i < count; i++) open();
  const timer = setInterval(() => {
    for (const socket of sockets) socket.tick?.();
  }, 100);
  return {
    answers,
    open: () => sockets.size,
    async stop() {
      going = false;
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await sleep(100);
    },
  };
}

export default async function hostile({ quick }) {
  const rows = [];
  idleP99 = undefined;
  const probeMs = quick ? 4_000 : 10_000;
  const emu = await startServer('emulator.js');
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const event = JSON.parse(body || '{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ challenge: event.data?.challenge }));
    });
  });
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  try {
    rows.push(healthRow('idle (baseline)', await probeHealth(emu.url, 2_000)));

    // Item 9, the issue's shape: 1 MB bodies at 9 KB/s (900 bytes every 100 ms).
    let attack = slowBodyAttack(emu.url, 260, 1_000_000, 900);
    await sleep(1_000);
    rows.push(
      healthRow('260 sign-in bodies of 1 MB at 9 KB/s', await probeHealth(emu.url, probeMs)),
    );
    await attack.stop();
    rows.at(-1).name +=
      ` (emulator answered: ${[...attack.answers].map(([s, n]) => `${s} x${n}`).join(', ')})`;

    // Under the cap, just above its minimum rate (2 KiB/s after 2 s): each holds its connection ~7 s.
    attack = slowBodyAttack(emu.url, 260, 16_000, 220);
    await sleep(1_000);
    rows.push(
      healthRow(
        '260 sign-in bodies of 16,000 bytes at 2.2 KB/s',
        await probeHealth(emu.url, probeMs),
      ),
    );
    await attack.stop();
    rows.at(-1).name +=
      ` (emulator answered: ${[...attack.answers].map(([s, n]) => `${s} x${n}`).join(', ')})`;

    // Item 8: installs against nested string checks, back to back.
    const auth = { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' };
    const call = async (method, path, body) => {
      const res = await request(`${emu.url}${path}`, {
        method,
        headers: auth,
        body: body && JSON.stringify(body),
      });
      return { status: res.statusCode, body: await res.body.json() };
    };
    const repository = (await call('GET', `/api/orgs/${emu.orgId}/repositories`)).body.data[0].id;
    const nested420 = (check) => ({
      type: 'object',
      definitions: { l1: { allOf: Array.from({ length: 20 }, () => check) } },
      properties: {
        text: { allOf: Array.from({ length: 21 }, () => ({ $ref: '#/definitions/l1' })) },
      },
    });
    const cases = [
      ['minLength x420 through $ref, 990 KB string', { minLength: 1 }, 'a'.repeat(990_000)],
      [
        'format byte x420 through $ref, 990 KB of base64',
        { format: 'byte' },
        Buffer.alloc(742_000, 7).toString('base64'),
      ],
    ];
    for (const [name, check, text] of cases) {
      const plugin = (
        await call('POST', `/api/orgs/${emu.orgId}/plugins`, {
          name: `hostile ${name}`.slice(0, 60),
          type: 'DATA_PROVIDER',
          events: [],
          scopes: [],
          webhookUrl: `http://127.0.0.1:${hook.address().port}/webhook`,
          inputsSchema: nested420(check),
        })
      ).body.data;
      await call('POST', `/api/plugins/${plugin.id}/verify-webhook`);
      let going = true;
      const took = [];
      const answers = new Map();
      const installs = (async () => {
        while (going) {
          const started = process.hrtime.bigint();
          const res = await call('POST', `/api/repositories/${repository}/data-providers`, {
            name: 'hostile',
            pluginId: plugin.id,
            events: [],
            scopes: [],
            inputs: { text },
          });
          took.push(Number(process.hrtime.bigint() - started) / 1e6);
          const answer = `${res.status} ${res.body.error?.details?.[0]?.code ?? ''}`.trim();
          answers.set(answer, (answers.get(answer) ?? 0) + 1);
        }
      })();
      await sleep(500);
      const probed = await probeHealth(emu.url, probeMs);
      going = false;
      await installs;
      const row = healthRow(`installs, ${name}`, probed);
      row.name += ` (${[...answers].map(([a, n]) => `${a} x${n}`).join(', ')}; install median ${median(took).toFixed(0)} ms)`;
      rows.push(row);
    }
  } finally {
    hook.close();
    await emu.stop();
  }
  return rows;
}
