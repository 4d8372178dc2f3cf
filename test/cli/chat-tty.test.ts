import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { createClient } from '../../src/client/index.js';
import { CLI } from '../helpers/cli-process.js';

const run = promisify(execFile);
/** A tmux server of this test file alone, killed afterwards. */
const SOCKET = `plugsmith-test-${process.pid}`;
const NOVA_HELLO = "Hi there! I'm Nova, a scripted character in the plugsmith emulator.";

let emu: Emulator;
let configDir: string;

const tmux = async (...args: string[]) => (await run('tmux', ['-L', SOCKET, ...args])).stdout;

/**
 * Starts `plugsmith <args>` in a new tmux session: a real terminal, CI unset. When the CLI exits,
 * the shell prints its exit code in the pane, which stays open until the server is killed.
 */
async function startInTmux(
  session: string,
  args: string[],
  extra: Record<string, string> = {},
): Promise<void> {
  const env = {
    ...extra,
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_API_KEY: emu.apiKey!,
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken,
    PLUGSMITH_CONFIG_DIR: configDir,
  };
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // CI=true (set by CI systems, maybe by the test runner) turns the REPL into the line mode: unset it here.
  const cli = [
    'env',
    '-u',
    'CI',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    process.execPath,
    CLI,
    ...args,
  ]
    .map(quote)
    .join(' ');
  await tmux(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '110',
    '-y',
    '40',
    `${cli}; echo "[plugsmith exited $?]"; exec sleep 600`,
  );
}

const screen = (session: string) => tmux('capture-pane', '-p', '-J', '-t', session);
/** Captures the pane until `check` accepts it (bounded); returns every screen seen on the way. */
async function waitForScreen(
  session: string,
  check: (text: string) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await screen(session);
    seen.push(text);
    if (check(text)) return seen;
    if (Date.now() > deadline)
      throw new Error(`the terminal never showed ${what}; last screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The input line (the last line that starts with the prompt). */
const promptLine = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('›'))
    .at(-1)
    ?.trimEnd() ?? '';

/** Types text, waits until the input line shows it, then presses Enter (a separate key, as a person's). */
async function typeLine(session: string, text: string): Promise<void> {
  await tmux('send-keys', '-t', session, '-l', text);
  await waitForScreen(session, (s) => promptLine(s) === `› ${text}`, `"${text}" in the input line`);
  await tmux('send-keys', '-t', session, 'Enter');
}

/** Waits until the CLI has exited and returns its exit code. */
async function waitForExit(session: string): Promise<number> {
  const screens = await waitForScreen(
    session,
    (s) => /\[plugsmith exited \d+\]/.test(s),
    'the CLI exiting',
  );
  return Number(/\[plugsmith exited (\d+)\]/.exec(screens.at(-1)!)![1]);
}

beforeAll(async () => {
  // The default workspace (char_nova), with slower packets so the screen can be caught mid-reply.
  emu = await startEmulator({ messaging: { packetSize: 4, packetIntervalMs: 60 } });
  configDir = await mkdtemp(join(tmpdir(), 'plugsmith-chat-tty-'));
});

afterAll(async () => {
  // kill-server can leave the socket file behind: remove it too.
  const socketPath = (await tmux('display-message', '-p', '#{socket_path}').catch(() => '')).trim();
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  await emu?.close();
  await rm(configDir, { recursive: true, force: true });
});

describe('plugsmith chat in a real terminal (tmux)', () => {
  test('the reply streams in, Up recalls the previous line, /quit leaves with exit code 0', async () => {
    await startInTmux('chat', ['chat', 'char_nova']);
    const start = await waitForScreen(
      'chat',
      (s) => s.includes('Ctrl+C leaves'),
      'the conversation starting',
    );
    const conversationId = /conversation (conv_\w+) with char_nova/.exec(start.at(-1)!)![1];

    await typeLine('chat', 'hello');
    const screens = await waitForScreen(
      'chat',
      (s) => s.includes(`char_nova › ${NOVA_HELLO}`),
      'the whole reply',
    );
    expect(
      screens.some((s) => /char_nova › Hi th/.test(s) && !s.includes('plugsmith emulator.')),
      'a screen with the reply part way',
    ).toBe(true);
    expect(screens.at(-1)).toContain('you › hello');

    await tmux('send-keys', '-t', 'chat', 'Up');
    await waitForScreen(
      'chat',
      (s) => promptLine(s) === '› hello',
      'the previous line recalled by Up',
    );
    await tmux('send-keys', '-t', 'chat', 'Enter');
    await waitForScreen(
      'chat',
      (s) => s.split(`char_nova › ${NOVA_HELLO}`).length === 3,
      'the second reply',
    );

    await typeLine('chat', '/quit');
    expect(await waitForExit('chat')).toBe(0);

    const client = createClient({
      baseUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      apiKey: emu.apiKey!,
    });
    const listed = await client.messaging.messages.list(conversationId);
    await client.close();
    expect(listed.data.map((m) => [m.sender, m.content])).toEqual([
      ['USER', 'hello'],
      ['CHARACTER', NOVA_HELLO],
      ['USER', 'hello'],
      ['CHARACTER', NOVA_HELLO],
    ]);
  });

  test('without a character id: a picker of the emulator’s characters; Ctrl+C leaves with exit code 0', async () => {
    await startInTmux('picker', ['chat']);
    await waitForScreen(
      'picker',
      (s) => s.includes('Chat with which character?') && s.includes('› Nova (char_nova)'),
      'the character picker',
    );
    await tmux('send-keys', '-t', 'picker', 'Enter');
    await waitForScreen(
      'picker',
      (s) => /conversation conv_\w+ with Nova/.test(s),
      'the conversation with the picked character',
    );
    await tmux('send-keys', '-t', 'picker', 'C-c');
    expect(await waitForExit('picker')).toBe(0);
  });

  test('under CI the terminal gets the line mode: replies printed plainly, Ctrl+D ends', async () => {
    await startInTmux('ci', ['chat', 'char_nova'], { CI: 'true' });
    await waitForScreen(
      'ci',
      (s) => /conversation conv_\w+ with char_nova/.test(s),
      'the line mode starting',
    );
    await tmux('send-keys', '-t', 'ci', '-l', 'hello');
    await tmux('send-keys', '-t', 'ci', 'Enter');
    const screens = await waitForScreen(
      'ci',
      (s) => s.split('\n').some((l) => l.trimEnd() === NOVA_HELLO),
      'the reply on a line of its own',
    );
    expect(screens.at(-1)).not.toContain('›');
    await tmux('send-keys', '-t', 'ci', 'C-d');
    expect(await waitForExit('ci')).toBe(0);
  });
});
