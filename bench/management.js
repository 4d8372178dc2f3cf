// The management API's reads: GET by id at least half of a bare fastify's rate (a floor, not a
// target) and a marketplace page (durable creates, emulator start and CLI cold start have suites of
// their own: creates.js, start.js, cli.js).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import { ALL_CPUS, load, median, pinSelf, pinning, root, startServer } from './lib.js';

export function populate(dataDir, count) {
  execFileSync(
    process.execPath,
    [join(root, 'bench/servers/populate.js'), dataDir, String(count)],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

async function firstPlugin(emu) {
  const res = await request(`${emu.url}/api/orgs/${emu.orgId}/plugins?@limit=1`, {
    headers: { authorization: emu.token },
  });
  const body = await res.body.json();
  return body.data[0].id;
}

/**
 * req/s and latency of each target, measured in rounds that take turns with the baseline (bare,
 * then each target; the next round in reverse order) on servers that are all running and warmed.
 * A target's ratio is the median of its rounds' ratios to the baseline's round beside it: on these
 * shared 2-core machines one 5 s run of the baseline followed by one of the target compared two
 * different moments (bare fastify alone measured 12,000 to 29,000 req/s from one run to the next),
 * while rounds side by side see the same machine. Figures are medians over the rounds.
 */
async function inTurns(baseline, targets, { rounds, duration }) {
  const all = [baseline, ...targets];
  const runs = new Map(all.map((t) => [t.name, []]));
  for (const t of all) await load({ url: t.url, headers: t.headers, duration: 1 });
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 ? [...all].reverse() : all) {
      const result = await load({ url: t.url, headers: t.headers, duration });
      if (result.failures > 0) throw new Error(`${t.name}: ${result.failures} failed requests`);
      runs.get(t.name).push(result);
    }
  }
  const base = runs.get(baseline.name);
  return new Map(
    all.map((t) => {
      const mine = runs.get(t.name);
      const of = (key) => median(mine.map((r) => r[key]));
      const ratio = median(mine.map((r, i) => r.rps / base[i].rps));
      return [
        t.name,
        {
          rps: of('rps'),
          p50: of('p50'),
          p99: of('p99'),
          total: mine.reduce((sum, r) => sum + r.total, 0),
          failures: 0,
          ratio,
          rounds: mine.map((r) => Math.round(r.rps)),
        },
      ];
    }),
  );
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
    // Reads over 10,000 plugins (5,000 public), in rounds that take turns with a bare fastify: both
    // servers on CPU 1, autocannon (this process) on CPU 0, where the machine allows.
    const readDir = await tempDir();
    populate(readDir, 10_000);
    const bare = await startServer('bare.js', [], {}, { cpu: 1 });
    const emu = await startServer('emulator.js', [readDir], {}, { cpu: 1 });
    const pluginId = await firstPlugin(emu);
    pinSelf('0');
    const reads = await inTurns(
      { name: 'bare', url: bare.url },
      [
        {
          name: 'get',
          url: `${emu.url}/api/plugins/${pluginId}`,
          headers: { authorization: emu.token },
        },
        {
          name: 'market',
          url: `${emu.url}/api/plugins/marketplace?tags=tag3&@sortBy=createdAt&@page=3`,
        },
      ],
      { rounds: quick ? 5 : 11, duration: Math.max(1, Math.round(duration * 0.4)) },
    );
    const baseline = reads.get('bare');
    rows.push({
      name: `bare fastify GET (baseline)${pinning ? ', servers on CPU 1, load on CPU 0' : ''}`,
      ...baseline,
      ratio: 1,
    });
    rows.push({ name: 'GET /api/plugins/:id', ...reads.get('get'), target: '>= 0.5x (floor)' });
    rows.push({ name: 'GET marketplace tag filter, page 3 (10k)', ...reads.get('market') });
    pinSelf(ALL_CPUS);
    await emu.stop();
    await bare.stop();
  } finally {
    pinSelf(ALL_CPUS);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return rows;
}
