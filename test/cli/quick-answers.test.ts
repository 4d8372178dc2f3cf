import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/main.js';
import type { Io } from '../../src/ui/io.js';
import { CLI, runCli } from '../helpers/cli-process.js';

// `plugsmith --version` answers without loading commander or the command registry (src/cli.ts);
// `--help` is commander's own, at the terminal's width.

const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const io: Io = { stdout: sink(), stderr: sink(), stdin: process.stdin, interactive: false };

/** The whole program's help, as commander writes it at `width` columns. */
function fullHelp(width: number): string {
  return buildProgram(io).configureOutput({ getOutHelpWidth: () => width }).helpInformation();
}

// A module resolve hook (off the main thread) that appends every URL the process loads to a file,
// and, at exit, the built-in modules it loaded.
const HOOKS = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.PLUGSMITH_TEST_LOADED, result.url + '\\n');
  return result;
}`)}`;
const RECORD = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(HOOKS)});
process.on('exit', () => appendFileSync(process.env.PLUGSMITH_TEST_LOADED, process.moduleLoadList.join('\\n') + '\\n'));`)}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-quick-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `plugsmith <args>` and returns its stdout and everything it loaded. */
async function runRecorded(args: string[]): Promise<{ code: number | null; stdout: string; loaded: string[] }> {
  const record = join(dir, `${args.join('_') || 'bare'}.txt`);
  const child = spawn(process.execPath, ['--import', RECORD, CLI, ...args], {
    env: { ...process.env, CI: 'true', NO_COLOR: '1', PLUGSMITH_TEST_LOADED: record },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, loaded: (await readFile(record, 'utf8')).split('\n').filter(Boolean) };
}

describe('quick answers', () => {
  test('--help, -h and plugsmith alone print the whole program\'s help', async () => {
    const expected = fullHelp(80);
    for (const args of [['--help'], ['-h'], []]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout, args.join(' ')).toBe(expected);
    }
  });

  test('--version and -v print the version alone, loading nothing else of the CLI', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await runRecorded([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
      expect(run.loaded.filter((url) => url.startsWith('file:') && !url.endsWith('/bin/plugsmith.js') && !url.endsWith('/dist/cli.js'))).toEqual([]);
    }
  });

  test('in a terminal of another width than 80 columns, the help is wrapped to that width, as commander does', async () => {
    // util-linux's `script` gives the command a real terminal, here of 100 columns.
    const { stdout } = await promisify(execFile)('script', ['-qec', `stty cols 100 rows 50; '${process.execPath}' '${CLI}' --help`, '/dev/null'], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    });
    expect(stdout.replace(/\r\n/g, '\n')).toBe(fullHelp(100));
    expect(fullHelp(100)).not.toBe(fullHelp(80));
  });

  test('a reader that closes stdout before the help ends it quietly (exit 0)', async () => {
    const child = spawn(process.execPath, [CLI, '--help'], { env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.destroy();
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  test('anything else still goes through the whole program (a usage error names --help)', async () => {
    const run = await runCli(['--json', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(fullHelp(80));
    const bad = await runCli(['--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--help');
  });
});
