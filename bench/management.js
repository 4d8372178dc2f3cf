// Issue 2's speed targets: the management API against a bare fastify baseline and creates on a
// durable store (emulator start and CLI cold start have suites of their own: start.js, cli.js).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import autocannon from 'autocannon';
import { load, median, root, startServer } from './lib.js';

function populate(dataDir, count) {
  execFileSync(process.execPath, [join(root, 'bench/servers/populate.js'), dataDir, String(count)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function firstPlugin(emu) {
  const res = await request(`${emu.url}/api/orgs/${emu.orgId}/plugins?@limit=1`, { headers: { authorization: emu.token } });
  const body = await res.body.json();
  return body.data[0].id;
}

/** CPU time (user + system, ms) a child process has used so far; null where /proc is missing (not Linux). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * Server CPU per request, bare fastify against the emulator, in rounds that take turns (bare, GET,
 * marketplace, ...) on servers that are all running and warmed: the median of each. req/s on these
 * shared 2-core machines swings with whatever else runs during a row's 5 s (and autocannon, on the
 * same cores, costs about as much per request as the server), so a row's ratio can move by a third
 * from one run to the next; the CPU a server spends per request barely moves with the machine's load.
 */
async function cpuPerRequest(targets, { rounds, amount }) {
  const spent = new Map(targets.map((t) => [t.name, []]));
  for (const t of targets) await autocannon({ url: t.url, headers: t.headers, connections: 50, amount, pipelining: 1 });
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 ? [...targets].reverse() : targets) {
      const before = cpuMs(t.pid);
      const result = await autocannon({ url: t.url, headers: t.headers, connections: 50, amount, pipelining: 1 });
      if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${t.name}: failed requests`);
      spent.get(t.name).push(((cpuMs(t.pid) - before) * 10_000) / amount);
    }
  }
  return new Map([...spent].map(([name, values]) => [name, median(values)]));
}

export default async function management({ duration, quick }) {
  const rows = [];
  const dirs = [];
  const tempDir = async () => {
    const d = await mkdtemp(join(tmpdir(), 'plugsmith-bench-'));
    dirs.push(d);
    return d;
  };
  try {
    // Baseline.
    const bare = await startServer('bare.js');
    const baseline = await load({ url: bare.url, duration });
    await bare.stop();
    rows.push({ name: 'bare fastify GET (baseline)', ...baseline, ratio: 1 });

    // Reads over 10,000 plugins (5,000 public).
    const readDir = await tempDir();
    populate(readDir, 10_000);
    const emu = await startServer('emulator.js', [readDir]);
    const pluginId = await firstPlugin(emu);
    const get = await load({ url: `${emu.url}/api/plugins/${pluginId}`, headers: { authorization: emu.token }, duration });
    rows.push({ name: 'GET /api/plugins/:id', ...get, ratio: get.rps / baseline.rps, target: '>= 0.9x' });
    const market = await load({ url: `${emu.url}/api/plugins/marketplace?tags=tag3&@sortBy=createdAt&@page=3`, duration });
    rows.push({ name: 'GET marketplace tag filter, page 3 (10k)', ...market, ratio: market.rps / baseline.rps, target: '>= 0.5x, p99 < 25 ms' });
    // The same two reads as server CPU per request, against a bare fastify measured in turns with them.
    if (cpuMs(emu.child.pid) !== null) {
      const bareAgain = await startServer('bare.js');
      const cpu = await cpuPerRequest(
        [
          { name: 'bare', url: bareAgain.url, headers: {}, pid: bareAgain.child.pid },
          { name: 'get', url: `${emu.url}/api/plugins/${pluginId}`, headers: { authorization: emu.token }, pid: emu.child.pid },
          { name: 'market', url: `${emu.url}/api/plugins/marketplace?tags=tag3&@sortBy=createdAt&@page=3`, headers: {}, pid: emu.child.pid },
        ],
        { rounds: quick ? 5 : 9, amount: 10_000 },
      );
      await bareAgain.stop();
      const bareMs = cpu.get('bare');
      rows.push({ name: 'server CPU ms per 10,000: bare fastify GET (baseline)', ms: bareMs, ratio: 1 });
      rows.push({ name: 'server CPU ms per 10,000: GET /api/plugins/:id', ms: cpu.get('get'), ratio: bareMs / cpu.get('get'), target: 'CPU view of >= 0.9x' });
      rows.push({ name: 'server CPU ms per 10,000: marketplace page 3 (10k)', ms: cpu.get('market'), ratio: bareMs / cpu.get('market'), target: 'CPU view of >= 0.5x' });
    }
    await emu.stop();

    // Durable creates at 10,000 and 100,000 stored plugins.
    for (const size of quick ? [10_000] : [10_000, 100_000]) {
      const dir = await tempDir();
      populate(dir, size);
      const e = await startServer('emulator.js', [dir]);
      const body = JSON.stringify({ name: 'created', type: 'APP', orgId: e.orgId, tags: ['x'], isPublic: true });
      const create = await load({
        url: `${e.url}/api/plugins`,
        method: 'POST',
        headers: { authorization: e.token, 'content-type': 'application/json' },
        body,
        duration,
      });
      rows.push({ name: `POST /api/plugins durable (${size / 1000}k stored)`, ...create, ratio: create.rps / baseline.rps, target: '>= 5,000/s' });
      await e.stop();
    }
    // Emulator start with 100,000 stored plugins is the `start` suite; CLI cold start the `cli` suite.
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return rows;
}
