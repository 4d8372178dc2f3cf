// Shared helpers of `npm run bench`: child servers, autocannon runs, timing, the results table.
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts `node <script> ...args` and resolves with the first JSON line it prints on stdout.
 * With BENCH_CPU_PROF=<dir> in the environment, the child writes a V8 CPU profile there on exit.
 * `cpu` (a CPU number) runs it on that CPU alone where `pinning` is possible.
 */
export async function startServer(script, args = [], env = {}, { cpu } = {}) {
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const command = [process.execPath, ...prof, join(root, 'bench/servers', script), ...args];
  if (cpu !== undefined && pinning) command.unshift('taskset', '-c', String(cpu));
  const child = spawn(command[0], command.slice(1), {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${script} exited with ${code} before it was ready`);
    }),
  ]);
  const info = JSON.parse(line);
  return {
    ...info,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * Whether processes can be held to one CPU each (Linux with taskset, two CPUs or more). Servers
 * compared with each other then share one CPU and this process (autocannon) keeps the other: the
 * scheduler no longer moves them about, or puts the load generator on the server's CPU, differently
 * for each server.
 */
export const pinning = availableParallelism() >= 2 && tasksetWorks();

function tasksetWorks() {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Holds this process (every thread) to `cpus` ("0", "0-1"), where `pinning` is possible. */
export function pinSelf(cpus) {
  if (pinning)
    execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' });
}

/** Every CPU of the machine, as taskset names them ("0-1"). */
export const ALL_CPUS = `0-${availableParallelism() - 1}`;

/** Runs autocannon and returns req/s and latency percentiles. */
export async function load({
  url,
  connections = 50,
  duration = 5,
  method = 'GET',
  headers = {},
  body,
  requests,
}) {
  const result = await autocannon({
    url,
    connections,
    duration,
    method,
    headers,
    body,
    requests,
    pipelining: 1,
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    failures: bad,
  };
}

/** Median of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Percentile (0..100) of numbers. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Wall time of one run of a command, in ms. */
export async function timeCommand(cmd, args, options = {}) {
  const start = process.hrtime.bigint();
  const child = spawn(cmd, args, { stdio: 'ignore', ...options });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${code}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function fmt(n, digits = 1) {
  return typeof n === 'number' ? n.toFixed(digits) : String(n);
}
