import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

/** A frame without colours, as a person reads it. */
export function plain(frame: string | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matches the terminal's escape sequences, which start with ESC
  return (frame ?? '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}

/** Waits (bounded) until the frame contains every text. */
export async function frameShows(
  lastFrame: () => string | undefined,
  ...texts: string[]
): Promise<string> {
  await vi.waitFor(
    () => {
      const frame = plain(lastFrame());
      for (const text of texts)
        if (!frame.includes(text))
          throw new Error(`the frame does not show ${JSON.stringify(text)}:\n${frame}`);
    },
    { timeout: 5_000, interval: 20 },
  );
  return plain(lastFrame());
}

/** Types a line and presses Enter, as two reads (as a person's keys arrive). */
export function typeLine(stdin: { write(data: string): void }, line: string): void {
  stdin.write(line);
  stdin.write('\r');
}

export const KEYS = { up: '\u001B[A', down: '\u001B[B', ctrlC: '\u0003' } as const;

/**
 * Terminal-like streams for `runChatApp` (ink's real render): a stdin that takes raw mode and
 * keys written by the test, and a stdout that keeps what was written.
 */
export function fakeTerminal() {
  class Input extends EventEmitter {
    isTTY = true;
    queue: string[] = [];
    setRawMode() {}
    setEncoding() {}
    resume() {}
    pause() {}
    ref() {}
    unref() {}
    read = () => this.queue.shift() ?? null;
    write(data: string) {
      this.queue.push(data);
      this.emit('readable');
    }
  }
  class Output extends EventEmitter {
    isTTY = true;
    columns = 100;
    rows = 40;
    text = '';
    write = (chunk: string) => {
      this.text += chunk;
      return true;
    };
  }
  return { stdin: new Input(), stdout: new Output(), stderr: new Output() };
}
