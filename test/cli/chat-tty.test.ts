import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { createClient } from '../../src/client/index.js';
import { cliTerminal, type Terminal } from '../kit/terminal.js';
import { emulator } from '../kit/index.js';

// plugsmith chat in a real terminal (a pseudo-terminal, test/kit/terminal.ts), CI unset unless a
// test sets it.

const NOVA_HELLO = "Hi there! I'm Nova, a scripted character in the plugsmith emulator.";

let emu: Emulator;
let configDir: string;

/** Starts `plugsmith <args>` in a real terminal pointed at the emulator. */
function chatInTerminal(args: string[], extra: Record<string, string> = {}): Terminal {
  const env = {
    ...extra,
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    PLUGSMITH_TOKEN: emu.token!,
    PLUGSMITH_API_KEY: emu.apiKey!,
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken,
    PLUGSMITH_CONFIG_DIR: configDir,
  };
  return cliTerminal(args, { env, columns: 110, rows: 40 });
}

/** The input line (the last line that starts with the prompt). */
const promptLine = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('›'))
    .at(-1)
    ?.trimEnd() ?? '';

/** Types text, waits until the input line shows it, then presses Enter (a separate key, as a person's). */
async function typeLine(t: Terminal, text: string): Promise<void> {
  t.type(text);
  await t.waitFor((s) => promptLine(s) === `› ${text}`, { what: `"${text}" in the input line` });
  t.press('Enter');
}

beforeAll(async () => {
  // The default workspace (char_nova), with slower packets so the screen can be caught mid-reply.
  emu = await emulator({ messaging: { packetSize: 4, packetIntervalMs: 60 } });
  configDir = await mkdtemp(join(tmpdir(), 'plugsmith-chat-tty-'));
});

afterAll(async () => {
  await rm(configDir, { recursive: true, force: true });
});

describe('plugsmith chat in a real terminal', () => {
  test('the reply streams in, Up recalls the previous line, /quit leaves with exit code 0', async () => {
    const t = chatInTerminal(['chat', 'char_nova']);
    const start = await t.waitFor((s) => s.includes('Ctrl+C leaves'), {
      what: 'the conversation starting',
    });
    const conversationId = /conversation (conv_\w+) with char_nova/.exec(start)![1];

    await typeLine(t, 'hello');
    // Every screen on the way is checked, so one with the reply part way is seen if it was shown.
    let partway = false;
    const whole = await t.waitFor(
      (s) => {
        if (/char_nova › Hi th/.test(s) && !s.includes('plugsmith emulator.')) partway = true;
        return s.includes(`char_nova › ${NOVA_HELLO}`);
      },
      { what: 'the whole reply' },
    );
    expect(partway, 'a screen with the reply part way').toBe(true);
    expect(whole).toContain('you › hello');

    t.press('Up');
    await t.waitFor((s) => promptLine(s) === '› hello', {
      what: 'the previous line recalled by Up',
    });
    t.press('Enter');
    await t.waitFor((s) => s.split(`char_nova › ${NOVA_HELLO}`).length === 3, {
      what: 'the second reply',
    });

    await typeLine(t, '/quit');
    expect(await t.waitForExit()).toBe(0);

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
    const t = chatInTerminal(['chat']);
    await t.waitFor(
      (s) => s.includes('Chat with which character?') && s.includes('› Nova (char_nova)'),
      { what: 'the character picker' },
    );
    t.press('Enter');
    await t.waitFor(/conversation conv_\w+ with Nova/, {
      what: 'the conversation with the picked character',
    });
    t.press('Ctrl+C');
    expect(await t.waitForExit()).toBe(0);
  });

  test('under CI the terminal gets the line mode: replies printed plainly, Ctrl+D ends', async () => {
    const t = chatInTerminal(['chat', 'char_nova'], { CI: 'true' });
    await t.waitFor(/conversation conv_\w+ with char_nova/, { what: 'the line mode starting' });
    t.type('hello');
    t.press('Enter');
    const reply = await t.waitFor((s) => s.split('\n').some((l) => l.trimEnd() === NOVA_HELLO), {
      what: 'the reply on a line of its own',
    });
    expect(reply).not.toContain('›');
    t.press('Ctrl+D');
    expect(await t.waitForExit()).toBe(0);
  });
});
