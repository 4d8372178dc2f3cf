import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  closeSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { commandLine, markedProcesses } from './processes.js';

// vitest globalSetup of every run. Runs before any worker starts, in vitest's own process, whose
// environment every worker and every process a test spawns inherits. It:
// - gives the run a home of its own (HOME and the XDG folders), so neither the tests' in-process
//   code (init's pack cache, config files) nor any spawned CLI reads or writes the person's own
//   ~/.cache, ~/.config or ~/.local/share; the folder is removed at the end;
// - marks every process of the run with PLUGSMITH_TEST_RUN=<id>, and at the end fails the run (after
//   killing them) when any process so marked is still alive: a test left a server or a CLI behind.
//   The mark survives re-parenting (an orphan adopted by init keeps its environment);
// - when the `python3` on PATH is a launcher script (a pyenv or asdf shim, which picks the
//   interpreter anew at every start: about a second each, and the Python tests start it a hundred
//   times), puts first on PATH a `python3` that runs the interpreter the launcher picked. The same
//   Python, found once for the run.

/** The environment variable that marks every process this run starts. */
export const RUN_MARK = 'PLUGSMITH_TEST_RUN';

/** Marked processes still alive, other than vitest itself: pid and command line. */
export function survivors(
  mark: string,
  exclude: Set<number>,
): Array<{ pid: number; command: string }> {
  return (
    markedProcesses(RUN_MARK, mark)
      .filter((pid) => !exclude.has(pid))
      .map((pid) => ({ pid, command: commandLine(pid) }))
      // vitest's own workers end with the run; they are not the tests' processes.
      .filter(({ command }) => !command.includes('/vitest/dist/'))
  );
}

/** Survivors that are still there after a moment: a process exiting as the run ends (a worker, a server closing) is not one. */
async function lasting(mark: string): Promise<Array<{ pid: number; command: string }>> {
  let left = survivors(mark, new Set([process.pid]));
  for (let i = 0; i < 20 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = survivors(mark, new Set([process.pid]));
  }
  return left;
}

/** The first `command` on PATH, if it is there. */
function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, command);
    try {
      closeSync(openSync(path, 'r'));
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether a file starts with `#!`: a script, not the program itself. */
function isScript(path: string): boolean {
  const head = Buffer.alloc(2);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 2, 0);
  } finally {
    closeSync(fd);
  }
  return head.toString('latin1') === '#!';
}

/**
 * A folder holding a `python3` that runs the interpreter PATH's `python3` launcher picks, when that
 * `python3` is a launcher script; else undefined (no Python, or the interpreter itself). A script
 * of its own, not a link: a virtual environment's interpreter finds its pyvenv.cfg by the path it
 * is started by.
 */
function directPython(home: string): string | undefined {
  const launcher = onPath('python3');
  if (!launcher || !isScript(launcher)) return undefined;
  let executable: string;
  try {
    executable = execFileSync(launcher, ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return undefined;
  }
  if (!executable) return undefined;
  const bin = join(home, '.python-bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'python3'),
    `#!/bin/sh\nexec '${executable.replaceAll("'", "'\\''")}' "$@"\n`,
    {
      mode: 0o755,
    },
  );
  return bin;
}

export default function setup(): () => Promise<void> {
  const mark = randomUUID();
  const home = mkdtempSync(join(tmpdir(), 'plugsmith-test-home-'));
  const folders = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
  };
  for (const dir of Object.values(folders)) mkdirSync(dir, { recursive: true });
  const python = directPython(home);
  const saved = Object.fromEntries(
    [...Object.keys(folders), 'PATH'].map((k) => [k, process.env[k]]),
  );
  // npm keeps its download cache under HOME (~/.npm): keep the person's, or every npm install in
  // the suite would start from an empty cache (and need the network).
  if (!process.env.npm_config_cache && !process.env.NPM_CONFIG_CACHE && saved.HOME)
    process.env.npm_config_cache = join(saved.HOME, '.npm');
  Object.assign(process.env, folders, { [RUN_MARK]: mark });
  if (python) process.env.PATH = `${python}${delimiter}${process.env.PATH ?? ''}`;

  return async () => {
    const left = await lasting(mark);
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // exited meanwhile
      }
    }
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(home, { recursive: true, force: true });
    if (left.length > 0) {
      // vitest reports an error thrown here but does not fail the run for it: set the exit code too.
      process.exitCode = 1;
      throw new Error(
        `processes started by the tests were still running at the end of the run (now killed):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`,
      );
    }
  };
}
