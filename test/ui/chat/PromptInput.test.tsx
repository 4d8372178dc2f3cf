import { useState } from 'react';
import { Box, Text } from 'ink';
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { PromptInput } from '../../../src/ui/chat/PromptInput.js';
import { useInputHistory } from '../../../src/ui/chat/use-input-history.js';
import { frameShows, KEYS, plain, typeLine } from './ink-helpers.js';

afterEach(cleanup);

/** The prompt as the chat uses it: submitted lines go into the history and are shown. */
function Harness({ initial }: { initial: string[] }) {
  const history = useInputHistory(initial);
  const [sent, setSent] = useState<string[]>([]);
  return (
    <Box flexDirection="column">
      <Text>sent: {sent.join(' | ')}</Text>
      <PromptInput
        history={history}
        onSubmit={(line) => {
          history.push(line);
          setSent((all) => [...all, line]);
        }}
      />
    </Box>
  );
}

const promptLine = (frame: string) =>
  frame
    .split('\n')
    .find((l) => l.startsWith('›'))
    ?.trim();

describe('PromptInput', () => {
  test('Up and Down walk the history; the draft comes back; a recalled line is edited at its end', async () => {
    const { stdin, lastFrame } = render(<Harness initial={['first']} />);
    typeLine(stdin, 'second');
    await frameShows(lastFrame, 'sent: second');
    stdin.write('my draft');
    await frameShows(lastFrame, '› my draft');

    stdin.write(KEYS.up);
    await vi_wait(() => promptLine(plain(lastFrame())) === '› second');
    stdin.write(KEYS.up);
    await vi_wait(() => promptLine(plain(lastFrame())) === '› first');
    stdin.write(KEYS.up); // the oldest stays
    await vi_wait(() => promptLine(plain(lastFrame())) === '› first');
    stdin.write(KEYS.down);
    await vi_wait(() => promptLine(plain(lastFrame())) === '› second');
    stdin.write(KEYS.down);
    await vi_wait(() => promptLine(plain(lastFrame())) === '› my draft');

    stdin.write(KEYS.up);
    await vi_wait(() => promptLine(plain(lastFrame())) === '› second');
    // A recalled line is a fresh text input: give it the moment to listen that a person's next key would.
    await new Promise((r) => setTimeout(r, 50));
    stdin.write(' edited');
    stdin.write('\r');
    await frameShows(lastFrame, 'sent: second | second edited');
    stdin.write(KEYS.up);
    await vi_wait(() => promptLine(plain(lastFrame())) === '› second edited');
  });

  test('Enter inside a chunk (a paste) submits each finished line and keeps the rest', async () => {
    const { stdin, lastFrame } = render(<Harness initial={[]} />);
    stdin.write('one\rtwo\rthr');
    await frameShows(lastFrame, 'sent: one | two', '› thr');
    // ink-text-input listens anew after each render: the next key comes a moment later, as a person's would.
    await new Promise((r) => setTimeout(r, 50));
    stdin.write('ee\r');
    await frameShows(lastFrame, 'sent: one | two | three');
    expect(promptLine(plain(lastFrame()))).toBe('›');
  });
});

async function vi_wait(check: () => boolean): Promise<void> {
  const { vi } = await import('vitest');
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('not yet');
    },
    { timeout: 3_000, interval: 10 },
  );
}
