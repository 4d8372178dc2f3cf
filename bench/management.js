// Issue 2's speed targets: the management API against a bare fastify baseline, creates on a
// durable store, CLI cold start, and emulator start with 100,000 stored plugins.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import { load, median, root, startServer, timeCommand } from './lib.js';

function populate(dataDir, count) {
  execFileSync(process.execPath, [join(root, 'bench/servers/populate.js'), dataDir, String(count)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function firstPlugin(emu) {
  const res = await request(`${emu.url}/api/orgs/${emu.orgId}/plugins?@limit=1`, { headers: { authorization: emu.token } });
  const body = await res.body.json();
  return body.data[0].id;
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

    // Emulator start to first answered request with 100,000 stored plugins: from spawning the
    // process to the answer of a real read of the store (not the health check, which reads none).
    {
      const dir = await tempDir();
      populate(dir, quick ? 10_000 : 100_000);
      const started = process.hrtime.bigint();
      const since = () => Number(process.hrtime.bigint() - started) / 1e6;
      const e = await startServer('emulator.js', [dir]);
      const timed = async (path) => {
        const t0 = process.hrtime.bigint();
        const r = await request(`${e.url}${path}`, { headers: { authorization: e.token } });
        await r.body.dump();
        if (r.statusCode !== 200) throw new Error(`${path} → ${r.statusCode}`);
        return Number(process.hrtime.bigint() - t0) / 1e6;
      };
      const size = quick ? '10k' : '100k';
      const listening = since();
      const first = await timed('/api/plugins/plg_bench_0000042');
      rows.push({ name: `emulator start to first answered GET /api/plugins/:id (${size} plugins)`, ms: since(), target: '< 1500 ms' });
      rows.push({ name: '  of which: spawn to listening', ms: listening });
      rows.push({ name: '  of which: that first GET', ms: first });
      // Records are parsed on first use: the first full scan parses every plugin.
      const scan = await timed('/api/plugins/marketplace?tags=tag3&@sortBy=createdAt&@page=3');
      rows.push({ name: '  then the first marketplace page (parses every plugin)', ms: scan });
      rows.push({ name: `  start to that marketplace page (${size} plugins)`, ms: since() });
      rows.push({ name: '  then the same marketplace page again', ms: await timed('/api/plugins/marketplace?tags=tag3&@sortBy=createdAt&@page=2') });
      await e.stop();
    }

    // CLI cold start against node -e 0, interleaved, median of 20.
    const cli = join(root, 'bin/plugsmith.js');
    const nodeTimes = [];
    const cliTimes = [];
    for (let i = 0; i < 20; i++) {
      nodeTimes.push(await timeCommand(process.execPath, ['-e', '0']));
      cliTimes.push(await timeCommand(process.execPath, [cli, '--version']));
    }
    rows.push({ name: 'node -e 0 (baseline)', ms: median(nodeTimes), ratio: 1 });
    rows.push({ name: 'plugsmith --version', ms: median(cliTimes), ratio: median(cliTimes) / median(nodeTimes), target: '<= 1.5x' });
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return rows;
}
