import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';

const run = promisify(execFile);

/** A real terminal running one command, as `terminal()` returns it. */
export interface Terminal {
  /** What the terminal shows now (wrapped lines joined). */
  screen(): Promise<string>;
  /** Sends keys as tmux names them (`'Enter'`, `'Down'`, or text). */
  keys(...keys: string[]): Promise<unknown>;
  /** Waits until the screen matches, or fails showing what is on it. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/**
 * Runs `command` in a tmux server of its own (a real terminal of `width` x `height`), killed when
 * the test ends. The command should end by waiting (`; sleep 600`) so its last screen can be read.
 */
export async function terminal(
  command: string,
  { width = 120, height = 40 } = {},
): Promise<Terminal> {
  const socket = `plugsmith-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
  await tmux('new-session', '-d', '-x', String(width), '-y', String(height), command);
  onTestFinished(async () => {
    await tmux('kill-server').catch(() => undefined);
  });
  const screen = async () => (await tmux('capture-pane', '-p', '-J')).stdout;
  return {
    screen,
    keys: (...keys) => tmux('send-keys', ...keys),
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}
