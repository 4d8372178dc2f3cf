import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askChoice, askMany } from '../../src/ui/dialogs.js';
import type { Io } from '../../src/ui/io.js';
import { until } from '../kit/index.js';

/** A terminal-like Io: keys written to stdin, everything the prompt draws kept. */
function fakeTerminal(): { io: Io; keys: PassThrough; drawn: () => string } {
  const keys = new PassThrough();
  let drawn = '';
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      drawn += String(chunk);
      done();
    },
  });
  return {
    io: { stdin: keys, stdout: new PassThrough(), stderr, interactive: true },
    keys,
    drawn: () => drawn,
  };
}

// A name from the platform (a plugin's, an event's) could carry a sequence that retitles or clears the terminal.
const HOSTILE = 'evil\u001b]0;pwned\u0007\u001b[2J';

describe('prompts escape the choices they show', () => {
  it.each([
    [
      'askChoice',
      (io: Io) =>
        askChoice(io, {
          flag: '--pick',
          message: 'Pick:',
          choices: [{ value: 'a', name: HOSTILE }],
        }),
    ],
    [
      'askMany',
      (io: Io) =>
        askMany(io, {
          flag: '--pick',
          message: 'Pick:',
          choices: [{ value: 'a', name: HOSTILE, checked: true }],
        }),
    ],
  ])(
    '%s shows control characters as \\x escapes and still answers the value',
    async (_name, ask) => {
      const t = fakeTerminal();
      const answer = ask(t.io);
      await until('the prompt to draw "Pick:"', () => t.drawn().includes('Pick:'), {
        intervalMs: 10,
        explain: () => `drawn so far: ${JSON.stringify(t.drawn())}`,
      });
      t.keys.write('\r');
      expect([await answer].flat()).toEqual(['a']);
      expect(t.drawn()).toContain('evil\\x1b]0;pwned\\x07\\x1b[2J');
      expect(t.drawn()).not.toContain('\u001b]0;pwned');
    },
  );
});
