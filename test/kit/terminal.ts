import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { CLI } from './cli-process.js';
import { own } from './scope.js';

// A real terminal for the tests of what a person sees and types: the command runs on a
// pseudo-terminal (@lydell/node-pty, prebuilt, no install script), and what it writes is rendered by
// a terminal emulator (@xterm/headless), so a test reads the screen a person would see.

/** The keys `press()` knows, as a terminal sends them. */
const KEYS = {
  Enter: '\r',
  Tab: '\t',
  Space: ' ',
  Backspace: '\x7f',
  Escape: '\x1b',
  'Ctrl+C': '\x03',
  'Ctrl+D': '\x04',
  Up: 'A',
  Down: 'B',
  Right: 'C',
  Left: 'D',
} as const;

/** A key `press()` sends: Enter, the arrows, Backspace, Ctrl+C… */
export type Key = keyof typeof KEYS;

const ARROWS = new Set<Key>(['Up', 'Down', 'Right', 'Left']);

/** A real terminal running one command, as `terminal()` returns it. */
export interface Terminal {
  /** What the terminal shows now: its visible lines, trailing spaces trimmed, a wrapped line joined to the one before. */
  screen(): string;
  /** Types text, as a person would (one write, no Enter). */
  type(text: string): void;
  /** Presses keys, one after another. */
  press(...keys: Key[]): void;
  /**
   * Resolves with the screen as soon as it matches (checked on every change of the screen, so a
   * function sees every screen on the way), or fails showing what is on it.
   */
  waitFor(
    match: RegExp | ((screen: string) => boolean),
    options?: { timeoutMs?: number; what?: string },
  ): Promise<string>;
  /** Resolves with the command's exit code (128 + the signal's number when a signal ended it) once it has ended and its last output is on the screen. */
  waitForExit(timeoutMs?: number): Promise<number>;
  /** Changes the terminal's size, as a person resizing the window. */
  resize(columns: number, rows: number): void;
}

/** What `terminal()` runs with. */
export interface TerminalOptions {
  /** Added to the test process's environment, from which CI is removed (a person at a terminal); pass `CI: 'true'` to keep it. */
  env?: Record<string, string>;
  cwd?: string;
  columns?: number;
  rows?: number;
}

/**
 * Runs `file` with `args` (no shell) in a real terminal of `columns` x `rows`; the kit ends it and its
 * process group when the test finishes (or after the file, called outside a test).
 */
export function terminal(file: string, args: string[], options: TerminalOptions = {}): Terminal {
  const { columns = 120, rows = 40 } = options;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== 'CI') env[name] = value;
  }
  Object.assign(env, options.env);
  // The screen is xterm's, so the program is told it runs in one.
  env.TERM = 'xterm-256color';
  const child = pty.spawn(file, args, {
    name: 'xterm-256color',
    cols: columns,
    rows,
    cwd: options.cwd ?? process.cwd(),
    env,
  });
  const screen = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true });
  // Each callback is run when the screen changed (and once more when the command ended).
  const watchers = new Set<() => void>();
  const notify = () => {
    for (const watcher of watchers) watcher();
  };
  let pendingWrites = 0;
  let flushed: (() => void) | undefined;
  child.onData((data) => {
    pendingWrites++;
    screen.write(data, () => {
      pendingWrites--;
      notify();
      if (pendingWrites === 0) flushed?.();
    });
  });
  // Answers the program's queries to the terminal (the cursor position…), as a terminal does.
  screen.onData((reply) => child.write(reply));

  let exitCode: number | undefined;
  const exited = new Promise<number>((resolve) => {
    child.onExit(({ exitCode: status, signal }) => {
      // Ended by a signal, the shell's way: 128 + its number (so a crash never reads as a success).
      const code = signal ? 128 + signal : status;
      // The screen shows the last output only once xterm has parsed it.
      const done = () => {
        exitCode = code;
        resolve(code);
        notify();
      };
      if (pendingWrites === 0) done();
      else flushed = done;
    });
  });

  own(async () => {
    if (exitCode === undefined) {
      // The command leads a session of its own: its process group is it and what it started.
      signalGroup(child.pid, 'SIGHUP');
      const ended = await Promise.race([exited.then(() => true), delay(3_000).then(() => false)]);
      if (!ended) {
        signalGroup(child.pid, 'SIGKILL');
        await exited;
      }
    }
    screen.dispose();
  });

  const read = (): string => {
    const buffer = screen.buffer.active;
    const lines: string[] = [];
    for (let y = buffer.viewportY; y < buffer.viewportY + screen.rows; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      const text = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines.join('\n');
  };

  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const watcher = () => {
        const result = check();
        if (result === undefined) return;
        finish();
        resolve(result);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`the terminal never showed ${what}; last screen:\n${read()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        watchers.delete(watcher);
      };
      watchers.add(watcher);
      watcher();
    });

  return {
    screen: read,
    type(text) {
      child.write(text);
    },
    press(...keys) {
      for (const key of keys) {
        if (!ARROWS.has(key)) {
          child.write(KEYS[key]);
          continue;
        }
        // An arrow is sent as the program asked for it: SS3 in application cursor mode, CSI otherwise.
        const prefix = screen.modes.applicationCursorKeysMode ? '\x1bO' : '\x1b[';
        child.write(prefix + KEYS[key]);
      }
    },
    waitFor(match, { timeoutMs = 15_000, what = String(match) } = {}) {
      const accepts = typeof match === 'function' ? match : (text: string) => match.test(text);
      return waitUntil(
        () => {
          const text = read();
          return accepts(text) ? text : undefined;
        },
        timeoutMs,
        what,
      );
    },
    waitForExit(timeoutMs = 15_000) {
      return waitUntil(() => exitCode, timeoutMs, 'the command ending');
    },
    resize(newColumns, newRows) {
      child.resize(newColumns, newRows);
      screen.resize(newColumns, newRows);
    },
  };
}

/** The built CLI, `plugsmith <args>`, in a real terminal (see `terminal()`). */
export function cliTerminal(args: string[], options: TerminalOptions = {}): Terminal {
  return terminal(process.execPath, [CLI, ...args], options);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
