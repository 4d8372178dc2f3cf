import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { onTestFinished } from 'vitest';
import { killMarked } from './processes.js';

/** The built CLI entry; `npm test` builds before running vitest. */
export const CLI = resolve(import.meta.dirname, '../../bin/plugsmith.js');

function assertBuilt(): void {
  if (!existsSync(resolve(import.meta.dirname, '../../dist/cli.js'))) {
    throw new Error(
      'dist/cli.js is missing: run `npm run build` (npm test does it) before these tests',
    );
  }
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** An isolated config dir for one test, removed when it finishes. */
export async function tempConfigDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-cfg-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the CLI to completion as a child process, without a terminal. */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(options.input ?? '');
  // A safety net, not an assertion: on a loaded 2-core machine one run can take many seconds.
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 100_000);
  // 'close', not 'exit': the process can exit before all of its output has been read.
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}

// A module resolve hook (off the main thread) that appends every URL the process loads to a file,
// and, at exit, the built-in modules it loaded and the CommonJS files it required (createRequire's
// requires do not pass through resolve hooks on Node 20).
const RECORD_HOOKS = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.PLUGSMITH_TEST_LOADED, result.url + '\\n');
  return result;
}`)}`;
const RECORD = `data:text/javascript,${encodeURIComponent(`
import { createRequire, register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(RECORD_HOOKS)});
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !m.startsWith('NativeModule internal/')).map((m) => 'node:' + m.slice(13));
  const required = Object.keys(createRequire(process.execPath).cache).map((file) => 'cjs:' + file);
  appendFileSync(process.env.PLUGSMITH_TEST_LOADED, [...builtins, ...required].join('\\n') + '\\n');
});`)}`;

/**
 * Runs the CLI as a child process (stdout piped, no terminal) and reports every module it loaded:
 * ES module URLs, CommonJS files as file URLs, and built-ins as `node:<name>` (public ones only).
 */
export async function runCliRecordingLoads(
  args: string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult & { loaded: string[] }> {
  assertBuilt();
  const dir = await mkdtemp(join(tmpdir(), 'plugsmith-loads-'));
  try {
    const record = join(dir, 'loaded.txt');
    const child = spawn(process.execPath, ['--import', RECORD, CLI, ...args], {
      env: {
        ...process.env,
        CI: 'true',
        NO_COLOR: '1',
        ...options.env,
        PLUGSMITH_TEST_LOADED: record,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    const lines = (await readFile(record, 'utf8')).split('\n').filter(Boolean);
    const loaded = [
      ...new Set(
        lines.map((line) => (line.startsWith('cjs:') ? pathToFileURL(line.slice(4)).href : line)),
      ),
    ];
    return { code, signal, stdout, stderr, loaded };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The bound of a wait on a process's output (default 90 s: `plugsmith dev`'s first delivery on a loaded 2-core machine, as the dev tests allow it). */
export interface OutputWait {
  timeoutMs?: number;
}

/** A long-running CLI process (e.g. `emulator start`), killed when the test finishes. */
export interface CliProcess {
  child: ChildProcess;
  /**
   * Resolves with the next line the process prints on stdout (each line is read once). Rejects when
   * the process ends first, or after `timeoutMs`, with the last lines it printed on stdout and stderr.
   */
  nextLine(options?: OutputWait): Promise<string>;
  /**
   * Reads stdout lines until one matches `pattern` and resolves with it; the lines before it are read
   * and dropped. Bounded as `nextLine()`, the bound for the whole wait.
   */
  lineMatching(pattern: RegExp, options?: OutputWait): Promise<string>;
  /**
   * Resolves with stderr once all it printed there so far matches `pattern` (which may span lines or
   * count occurrences). Bounded as `nextLine()`.
   */
  stderrShows(pattern: RegExp, options?: OutputWait): Promise<string>;
  /** Every line printed on stdout so far, read by the waits above or not (for a test that looks at them all). */
  stdoutLines(): string[];
  stderr(): string;
  /** Sends a signal and resolves with the exit code and signal. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** How many of the last lines of stdout and of stderr a failed wait shows. */
const SHOWN_LINES = 30;

/** The last lines of an output, indented, for an error message. */
function lastLines(lines: string[]): string {
  if (lines.length === 0) return '  (nothing)';
  const shown = lines.slice(-SHOWN_LINES).map((line) => `  ${line}`);
  if (lines.length > SHOWN_LINES) shown.unshift(`  … ${lines.length - SHOWN_LINES} lines before`);
  return shown.join('\n');
}

/**
 * Starts the CLI as a child process, killed when the test finishes. Tests of a `describe.concurrent`
 * block must pass their context's `onTestFinished`: the global one is tied to whichever test started
 * last, so it would kill this process when another test ends.
 */
export function spawnCli(
  args: string[],
  options: {
    env?: Record<string, string>;
    cwd?: string;
    onTestFinished?: (cleanup: () => void) => void;
  } = {},
): CliProcess {
  assertBuilt();
  // Every process this CLI starts (dev's plugin runs in a process group of its own) inherits the mark.
  const mark = randomUUID();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: {
      ...process.env,
      CI: 'true',
      NO_COLOR: '1',
      ...options.env,
      PLUGSMITH_TEST_PROCESS: mark,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The waits in progress, each checked again on every line, on stderr, and when the process ends.
  const waits = new Set<() => void>();
  const wake = () => {
    for (const check of [...waits]) check();
  };
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
    wake();
  });
  // The lines not read yet; `printed` keeps every line, for what a failed wait shows.
  const queue: string[] = [];
  const printed: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    queue.push(line);
    printed.push(line);
    wake();
  });
  let ended: string | undefined;
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  void exited.then(([code, signal]) => {
    ended = signal ?? `code ${code}`;
    wake();
  });
  const command = `plugsmith ${args.join(' ')}`;
  const output = () =>
    `stdout (its last lines):\n${lastLines(printed)}\nstderr (its last lines):\n${lastLines(err.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1))}`;
  /** What `find` returns once it returns something, checked now and on every output; bounded. */
  const waitFor = <T>(
    what: string,
    find: () => T | undefined,
    { timeoutMs = 90_000 }: OutputWait = {},
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined && !ended) return;
        waits.delete(check);
        clearTimeout(timer);
        if (found !== undefined) resolve(found);
        else reject(new Error(`\`${command}\` ended (${ended}) before ${what}\n${output()}`));
      };
      const timer = setTimeout(() => {
        waits.delete(check);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what} of \`${command}\`\n${output()}`,
          ),
        );
      }, timeoutMs);
      waits.add(check);
      check();
    });
  (options.onTestFinished ?? onTestFinished)(async () => {
    // Killed with SIGKILL, the CLI cannot stop what it started: those go too, found by the mark.
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    killMarked('PLUGSMITH_TEST_PROCESS', mark);
  });
  return {
    child,
    nextLine: (options) => waitFor('a line on stdout', () => queue.shift(), options),
    lineMatching: (pattern, options) =>
      waitFor(
        `a line on stdout matching ${pattern}`,
        () => {
          for (let line = queue.shift(); line !== undefined; line = queue.shift())
            if (pattern.test(line)) return line;
          return undefined;
        },
        options,
      ),
    stderrShows: (pattern, options) =>
      waitFor(`stderr to show ${pattern}`, () => (pattern.test(err) ? err : undefined), options),
    stdoutLines: () => [...printed],
    stderr: () => err,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, sig] = await exited;
      return { code, signal: sig };
    },
  };
}
