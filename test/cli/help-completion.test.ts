import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { commands } from '../../src/commands/registry.js';
import { buildProgram, main } from '../../src/main.js';
import { UserError } from '../../src/errors.js';
import type { Io } from '../../src/ui/io.js';
import { OWNER_TOKEN, useCliEnv } from '../kit/cli-env.js';

const t = useCliEnv();

/** An Io that keeps what is written, for running the program in-process. */
function bufferIo(): Io & { out(): string } {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stdout: sink, stderr: sink, stdin: process.stdin, interactive: false, out: () => text };
}

describe('help, the command reference and completion', () => {
  test('every registered command has at least one example, and its --help shows them', async () => {
    for (const spec of commands)
      expect(spec.examples.length, spec.path.join(' ')).toBeGreaterThan(0);
    for (const spec of commands) {
      const io = bufferIo();
      await main([...spec.path, '--help'], io);
      expect(io.out(), spec.path.join(' ')).toContain(`Examples:\n  $ ${spec.examples[0]}`);
    }
  });

  test('the command reference (docs/commands.md) documents every command and option', async () => {
    const reference = await readFile(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    for (const spec of commands) {
      expect(reference, spec.path.join(' ')).toContain(`### plugsmith ${spec.path.join(' ')}\n`);
      for (const option of spec.options ?? []) {
        const long = /--[a-z-]+/.exec(option.flags)![0];
        expect(reference, `${spec.path.join(' ')} ${long}`).toContain(long);
      }
    }
  });

  test('bash completion completes commands, subcommands, options and option choices', async () => {
    // The scripts come from the CLI in this process; bash runs the one for bash.
    const script = await t.cli(['completion', 'bash']);
    expect(script.code).toBe(0);
    const path = join(t.dir, 'plugsmith.bash');
    await writeFile(path, script.stdout);
    const complete = async (words: string[]) => {
      const line = words.map((w) => `'${w}'`).join(' ');
      const { stdout } = await promisify(execFile)('bash', [
        '-c',
        `source '${path}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _plugsmith; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
      return stdout.trim().split('\n');
    };
    expect(await complete(['plugsmith', 'plu'])).toEqual(['plugins']);
    expect(await complete(['plugsmith', 'plugins', ''])).toEqual(
      expect.arrayContaining([
        'create',
        'get',
        'list',
        'update',
        'delete',
        'verify',
        'marketplace',
        'secret',
      ]),
    );
    expect(await complete(['plugsmith', 'plugins', 'create', '--type', ''])).toEqual([
      'EVENT_HANDLER',
      'APP',
      'DATA_PROVIDER',
    ]);
    expect(
      await complete(['plugsmith', 'repos', '--org', 'org_x', 'files', 'list', '--li']),
    ).toEqual(['--limit']);
    expect(await complete(['plugsmith', 'files', 'upload', 'a.txt', '--parent-t'])).toEqual([
      '--parent-type',
    ]);
  });

  test("plugsmith --help prints the whole program's help", async () => {
    const io = bufferIo();
    await main(['--help'], io);
    expect(io.out()).toBe(buildProgram(bufferIo()).helpInformation());
  });

  test("plugsmith help with a command of a group prints that command's help, as --help does", async () => {
    const byHelp = bufferIo();
    await main(['help', 'plugins', 'create'], byHelp);
    const byOption = bufferIo();
    await main(['plugins', 'create', '--help'], byOption);
    expect(byHelp.out()).toContain('Usage: plugsmith plugins create [options]');
    expect(byHelp.out()).toBe(byOption.out());
    // One word is the group's help, as before; a group's own help command reads the rest the same way.
    const group = bufferIo();
    await main(['help', 'plugins'], group);
    expect(group.out()).toContain('Usage: plugsmith plugins [options] [command]');
    const inGroup = bufferIo();
    await main(['plugins', 'help', 'create'], inGroup);
    expect(inGroup.out()).toBe(byOption.out());
    // A word that names no command is the unknown-command error `plugsmith <words>` gives, never commander's "(outputHelp)".
    for (const [words, message] of [
      [['help', 'nope'], "unknown command 'nope' (its commands: login,"],
      [['help', 'plugins', 'nope'], "unknown command 'nope' of `plugsmith plugins`"],
      [['plugins', 'help', 'nope'], "unknown command 'nope' of `plugsmith plugins`"],
    ] as const) {
      const error = await main([...words], bufferIo()).catch((e: unknown) => e);
      expect(error, words.join(' ')).toBeInstanceOf(UserError);
      expect((error as UserError).message).toContain(message);
      expect((error as UserError).message).not.toContain('outputHelp');
      expect((error as UserError).exitCode).toBe(2);
    }
  });

  test('help never runs a command: words after a command are ignored, and "help" as an argument stays one', async () => {
    const login = await t.cli(
      ['login', '--base-url', t.emu.url, '--token', '-', '--profile', 'kept'],
      {},
      `${OWNER_TOKEN}\n`,
    );
    expect(login.code, login.stderr).toBe(0);
    const before = await t.cli(['profiles', 'list', '--json']);
    expect(before.stdout).toContain('"kept"');
    const shown = await t.cli(['help', 'profiles', 'remove', 'kept']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Usage: plugsmith profiles remove [options] <name>');
    expect((await t.cli(['profiles', 'list', '--json'])).stdout).toBe(before.stdout);
    // After a command of its own, "help" is its argument: the profile named "help".
    const argument = await t.cli(['profiles', 'remove', 'help']);
    expect(argument.code).toBe(4);
    expect(argument.stderr).toContain('no profile named "help"');
    // `help help` is the program's help.
    const twice = bufferIo();
    await main(['help', 'help'], twice);
    expect(twice.out()).toBe(buildProgram(bufferIo()).helpInformation());
  });

  test('zsh and fish scripts cover every command; an unknown shell is a usage error', async () => {
    const program = buildProgram(bufferIo());
    expect(program.commands.length).toBeGreaterThan(0);
    const [zsh, fish, other] = await Promise.all([
      t.cli(['completion', 'zsh']),
      t.cli(['completion', 'fish']),
      t.cli(['completion', 'tcsh']),
    ]);
    expect(zsh.stdout).toMatch(/^#compdef plugsmith/);
    expect(fish.stdout).toContain('complete -c plugsmith');
    for (const spec of commands) {
      expect(zsh.stdout).toContain(`'${spec.path.join(' ')}'`);
      expect(fish.stdout).toContain(
        `'p:${spec.path.slice(0, -1).join(' ')}'" -a '${spec.path[spec.path.length - 1]}'`,
      );
    }
    expect(fish.stdout).toContain("-l dispatch-mode -x -a 'SYNC ASYNC'");
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('bash, zsh or fish');
    // Names every object has are not shells either (`constructor` used to crash, `toString` to print [object Object]).
    for (const name of ['constructor', 'toString']) {
      const run = await t.cli(['completion', name]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('bash, zsh or fish');
      expect(run.stdout).toBe('');
    }
  });
});
