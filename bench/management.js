// Issue 2's speed targets: the management API against a bare fastify baseline and creates on a
// durable store (emulator start and CLI cold start have suites of their own: start.js, cli.js).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import { load, root, startServer } from './lib.js';

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
    // Emulator start with 100,000 stored plugins is the `start` suite; CLI cold start the `cli` suite.
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return rows;
}
