import type { Writable, Readable } from 'node:stream';

/** Where a command reads and writes; the real process streams, or buffers in tests. */
export interface Io {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  /** Set when the command may prompt (a terminal, and not CI). */
  interactive: boolean;
}

/** The process's own streams. */
export function processIo(ci: boolean): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY) && !ci,
  };
}
