import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/main.js';
import type { Io } from '../../src/ui/io.js';
import { CLI, runCli } from '../kit/cli-process.js';

// `plugsmith --version` prints the version alone; `--help` is commander's own, at the terminal's width.

const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const io: Io = { stdout: sink(), stderr: sink(), stdin: process.stdin, interactive: false };

/** The whole program's help, as commander writes it at `width` columns. */
function fullHelp(width: number): string {
  return buildProgram(io)
    .configureOutput({ getOutHelpWidth: () => width })
    .helpInformation();
}

describe('quick answers', () => {
  test("--help, -h and plugsmith alone print the whole program's help", async () => {
    const expected = fullHelp(80);
    for (const args of [['--help'], ['-h'], []]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout, args.join(' ')).toBe(expected);
    }
  });

  test('--version and -v print the version alone', async () => {
    const { version } = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-v']) {
      const run = await runCli([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  test('in a terminal of another width than 80 columns, the help is wrapped to that width, as commander does', async () => {
    // util-linux's `script` gives the command a real terminal, here of 100 columns.
    const { stdout } = await promisify(execFile)(
      'script',
      ['-qec', `stty cols 100 rows 50; '${process.execPath}' '${CLI}' --help`, '/dev/null'],
      {
        env: { ...process.env, CI: 'true', NO_COLOR: '1' },
      },
    );
    expect(stdout.replace(/\r\n/g, '\n')).toBe(fullHelp(100));
    expect(fullHelp(100)).not.toBe(fullHelp(80));
  });

  test('a reader that closes stdout before the help ends it quietly (exit 0)', async () => {
    const child = spawn(process.execPath, [CLI, '--help'], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
