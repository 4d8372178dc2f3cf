// `npm run bench [-- SUITE...] [--quick] [--duration S]`: runs benchmark suites, prints one table,
// and saves the figures as JSON under bench/results/. Without a suite name it runs the budget suites
// (cli, start, miniflare, delivery, creates, plugin-output): each budget row says whether the budget held, and a missed budget makes
// the exit code 1. `--only a,b` still names suites too.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, root } from './lib.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/** The budgets a person feels (issue 34): what `npm run bench` runs by default. */
const BUDGET_SUITES = ['cli', 'start', 'miniflare', 'delivery', 'creates', 'plugin-output'];

const suites = {
  cli: () => import('./cli.js'),
  start: () => import('./start.js'),
  miniflare: () => import('./miniflare.js'),
  delivery: () => import('./delivery.js'),
  creates: () => import('./creates.js'),
  'big-store': () => import('./big-store.js'),
  management: () => import('./management.js'),
  uploads: () => import('./uploads.js'),
  messaging: () => import('./messaging.js'),
  security: () => import('./security.js'),
  validation: () => import('./validation-budget.js'),
  hostile: () => import('./hostile.js'),
  dashboard: () => import('./dashboard.js'),
  scenario: () => import('./scenario.js'),
  mcp: () => import('./mcp.js'),
  'plugin-output': () => import('./plugin-output.js'),
  'test-suite': () => import('./test-suite.js'),
};

if (values.help) {
  console.log(`npm run bench [-- SUITE...] [--only a,b] [--quick] [--duration S]

Runs benchmark suites, prints one table and saves the figures under bench/results/.
Without a suite it runs the budget suites (${BUDGET_SUITES.join(', ')}) and exits 1 when a budget is missed.
Suites: ${Object.keys(suites).join(', ')} (test-suite runs only by name: the whole suite on a fresh clone).`);
  process.exit(0);
}

const named = [...positionals, ...(values.only ? values.only.split(',') : [])];
const selected = named.length > 0 ? named : BUDGET_SUITES;
for (const name of selected) {
  if (!suites[name]) {
    console.error(`unknown suite ${name}; suites: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
}

const results = {};
for (const name of selected) {
  console.error(`running ${name}…`);
  const { default: run } = await suites[name]();
  results[name] = await run({ duration: Number(values.duration), quick: values.quick });
}

const header = ['suite', 'measure', 'req/s', 'p50 ms', 'p99 ms', 'ms', 'ratio', 'target', 'met'];
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
      r.ratio !== undefined ? `${fmt(r.ratio, 2)}x` : '',
      r.budget ?? r.target ?? '',
      r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    ]);
  }
}
const widths = header.map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
for (const l of lines) console.log(l.map((c, i) => String(c).padEnd(widths[i])).join('  '));

const budgets = Object.values(results)
  .flat()
  .filter((r) => r.met !== undefined);
const missed = budgets.filter((r) => !r.met);
if (budgets.length > 0) {
  console.log(`\nbudgets: ${budgets.length - missed.length} of ${budgets.length} met`);
  for (const r of missed) console.log(`  missed: ${r.name} (budget ${r.budget})`);
}

await mkdir(join(root, 'bench/results'), { recursive: true });
const file = join(root, 'bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
await writeFile(
  file,
  JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2),
);
console.error(`saved ${file}`);
if (missed.length > 0) process.exitCode = 1;
