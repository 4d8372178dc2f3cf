// The start budget (issue 34): an in-memory `startEmulator()` <= 50 ms, as a plugin's test suite
// starts one per test file or per test. Each of 10 processes imports the emulator and starts it 5
// times: the budget holds the starts after the first of a process (median over the processes of
// their median); the first start of a process, which also loads and sets up the schema compilers,
// is reported beside it, as is a bare fastify app of one route started the same way.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { median, root } from './lib.js';

const PROCESSES = 10;
const STARTS = 5;
const BUDGET_MS = 50;

/** One process's start times: the emulator's and the bare app's, in ms. */
function startLoop() {
  const out = execFileSync(
    process.execPath,
    [join(root, 'bench/servers/start-loop.js'), String(STARTS)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').at(-1));
}

export default async function start() {
  const first = [];
  const later = [];
  const bare = [];
  for (let i = 0; i < PROCESSES; i++) {
    const run = startLoop();
    first.push(run.emulator[0]);
    later.push(median(run.emulator.slice(1)));
    bare.push(median(run.bare.slice(1)));
  }
  const figure = median(later);
  return [
    {
      name: `startEmulator() in memory, starts 2..${STARTS} of a process (median of ${PROCESSES} processes)`,
      ms: figure,
      budget: `<= ${BUDGET_MS} ms`,
      met: figure <= BUDGET_MS,
    },
    { name: `  the first start of a process (median of ${PROCESSES})`, ms: median(first) },
    { name: '  a bare fastify app of one route, the same way', ms: median(bare) },
  ];
}
