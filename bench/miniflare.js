// Issue 42: a test file's own emulator, `startEmulator()` + first answered request + `close()`,
// within 0.25x of what Miniflare 4 costs for the same (`new Miniflare()` + `dispatchFetch` +
// `dispose()`), the reference of a local server a test suite starts. Each figure is the median of
// 10 processes, the two kinds taking turns so that they share the machine's load; the imports and
// the HTTP client's first-use set-up (one request to a throwaway local server, the same for both
// kinds: see servers/first-request.js) are outside the timing. Miniflare is not a dependency of plugsmith: the suite installs the version
// below into a folder of the OS's temporary directory the first time (npm, from the registry).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, root } from './lib.js';

const MINIFLARE_VERSION = '4.20260426.0';
const PROCESSES = 10;
const BUDGET_RATIO = 0.25;

/** The path of Miniflare's entry module, installed once into a folder of its own. */
function miniflare() {
  const prefix = join(tmpdir(), `plugsmith-bench-miniflare-${MINIFLARE_VERSION}`);
  const entry = join(prefix, 'node_modules/miniflare/dist/src/index.js');
  if (!existsSync(entry)) {
    console.error(`installing miniflare@${MINIFLARE_VERSION} into ${prefix}…`);
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', `miniflare@${MINIFLARE_VERSION}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return entry;
}

function firstRequest(args) {
  const out = execFileSync(
    process.execPath,
    [join(root, 'bench/servers/first-request.js'), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return JSON.parse(out.trim().split('\n').at(-1)).ms;
}

export default async function miniflareRatio() {
  const entry = miniflare();
  const emulator = [];
  const reference = [];
  for (let i = 0; i < PROCESSES; i++) {
    emulator.push(firstRequest(['emulator']));
    reference.push(firstRequest(['miniflare', entry]));
  }
  const ratio = median(emulator) / median(reference);
  return [
    {
      name: `startEmulator() + first request + close() (median of ${PROCESSES} processes)`,
      ms: median(emulator),
      ratio,
      budget: `<= ${BUDGET_RATIO}x Miniflare`,
      met: ratio <= BUDGET_RATIO,
    },
    {
      name: `  Miniflare ${MINIFLARE_VERSION}: new + dispatchFetch + dispose (median of ${PROCESSES})`,
      ms: median(reference),
    },
  ];
}
