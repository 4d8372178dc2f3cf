// `npm run bench [-- --only NAME] [--quick] [--duration S]`: runs the benchmark suites, prints one
// table, and saves the figures as JSON under bench/results/. Ratios compare against a baseline
// measured in the same run, because these machines are noisy.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, root } from './lib.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
  },
});

const suites = {
  management: () => import('./management.js'),
  delivery: () => import('./delivery.js'),
  uploads: () => import('./uploads.js'),
  messaging: () => import('./messaging.js'),
  cli: () => import('./cli.js'),
  start: () => import('./start.js'),
  security: () => import('./security.js'),
  dashboard: () => import('./dashboard.js'),
  scenario: () => import('./scenario.js'),
  mcp: () => import('./mcp.js'),
};

const selected = values.only ? values.only.split(',') : Object.keys(suites);
const results = {};
for (const name of selected) {
  if (!suites[name]) {
    console.error(`unknown suite ${name}; suites: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
  console.error(`running ${name}…`);
  const { default: run } = await suites[name]();
  results[name] = await run({ duration: Number(values.duration), quick: values.quick });
}

const header = ['suite', 'measure', 'req/s', 'p50 ms', 'p99 ms', 'ms', 'ratio', 'target'];
const lines = [header];
for (const [suite, rows] of Object.entries(results)) {
  for (const r of rows) {
    lines.push([
      suite,
      r.name,
      r.rps !== undefined ? fmt(r.rps, 0) : '',
      r.p50 !== undefined ? fmt(r.p50) : '',
      r.p99 !== undefined ? fmt(r.p99) : '',
      r.ms !== undefined ? fmt(r.ms) : '',
      r.ratio !== undefined ? fmt(r.ratio, 2) + 'x' : '',
      r.target ?? '',
    ]);
  }
}
const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
for (const l of lines) console.log(l.map((c, i) => String(c).padEnd(widths[i])).join('  '));

await mkdir(join(root, 'bench/results'), { recursive: true });
const file = join(root, 'bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2),
);
console.error(`saved ${file}`);
