import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { createClient } from '../../../src/client/index.js';
import { UserError } from '../../../src/errors.js';
import { listCharacters } from '../../../src/commands/chat/list-characters.js';
import { ChatApp } from '../../../src/ui/chat/ChatApp.js';
import { runChatApp } from '../../../src/ui/chat/run-chat-app.js';
import type { Io } from '../../../src/ui/io.js';
import { NOVA_HELLO, ORG, SLOW_REPLY, useChatEmulator } from './chat-env.js';
import { fakeTerminal, frameShows, KEYS, plain, typeLine } from './ink-helpers.js';

const t = useChatEmulator();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-chat-ui-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(cleanup);

/** The conversation id the app announced. */
function conversationIdOf(frame: string, nth = 0): string {
  return [...frame.matchAll(/conversation (conv_\w+) with/g)][nth][1];
}

describe('ChatApp', () => {
  test('the reply streams in under the message; Up recalls the line sent', async () => {
    const client = t.client();
    const { stdin, lastFrame, frames } = render(
      <ChatApp client={client} characterId="char_slow" characterName="Slow" />,
    );
    await frameShows(
      lastFrame,
      'conversation conv_',
      'with Slow; /help lists commands, Ctrl+C leaves',
    );
    typeLine(stdin, 'count for me');
    await frameShows(lastFrame, 'you › count for me', `Slow › ${SLOW_REPLY}`);
    // Some frame showed the reply part way: it grew packet by packet.
    expect(frames.map(plain).some((f) => /Slow › One, two/.test(f) && !f.includes('twelve.'))).toBe(
      true,
    );
    expect(frames.map(plain).some((f) => f.includes('Slow is writing…'))).toBe(true);
    stdin.write(KEYS.up);
    await frameShows(lastFrame, '› count for me');

    const conversationId = conversationIdOf(plain(lastFrame()));
    const listed = await client.messaging.messages.list(conversationId);
    expect(listed.data.map((m) => m.content)).toEqual(['count for me', SLOW_REPLY]);
  });

  test('slash commands: /help, /attach, /history, /save (Markdown, JSON, refused), /new, unknown', async () => {
    const client = t.client();
    const { stdin, lastFrame } = render(
      <ChatApp client={client} characterId="char_nova" characterName="Nova" />,
    );
    await frameShows(lastFrame, 'Ctrl+C leaves');
    const first = conversationIdOf(plain(lastFrame()));

    typeLine(stdin, '/help');
    await frameShows(
      lastFrame,
      'Commands:',
      '/attach <imageUrl>',
      '/save <file>',
      '/quit',
      'Up and Down recall the lines you sent.',
    );

    typeLine(stdin, '/attach https://example.com/cat.png');
    await frameShows(
      lastFrame,
      'attached https://example.com/cat.png to your next message',
      'attached to your next message: https://example.com/cat.png',
    );
    typeLine(stdin, '/attach ftp://example.com/x');
    await frameShows(lastFrame, 'error: not an http(s) URL: ftp://example.com/x');
    typeLine(stdin, 'hello');
    await frameShows(
      lastFrame,
      'you › hello',
      '[image] https://example.com/cat.png',
      `Nova › ${NOVA_HELLO}`,
    );
    expect(plain(lastFrame())).not.toContain('attached to your next message:');
    const sent = (await client.messaging.messages.list(first)).data[0];
    expect(sent.attachments).toEqual([
      { type: 'IMAGE_URL', content: 'https://example.com/cat.png' },
    ]);

    typeLine(stdin, '/history');
    await frameShows(
      lastFrame,
      '  1  /help',
      '  2  /attach https://example.com/cat.png',
      '  4  hello',
    );

    const md = join(dir, 'chat.md');
    const json = join(dir, 'chat.json');
    typeLine(stdin, `/save ${md}`);
    await frameShows(lastFrame, `saved 2 messages to ${md} (Markdown)`);
    typeLine(stdin, `/save ${json}`);
    await frameShows(lastFrame, `saved 2 messages to ${json} (JSON)`);
    typeLine(stdin, `/save ${join(dir, 'chat.txt')}`);
    await frameShows(lastFrame, 'error: cannot save: cannot tell the format of');
    const markdown = await readFile(md, 'utf8');
    expect(markdown).toContain(`# Conversation ${first} with Nova`);
    expect(markdown).toMatch(
      /\*\*You\*\* \(.+\):\n\nhello\n\n!\[attachment\]\(https:\/\/example\.com\/cat\.png\)/,
    );
    expect(markdown).toContain(`**Nova**`);
    expect(markdown).toContain(NOVA_HELLO);
    const saved = JSON.parse(await readFile(json, 'utf8'));
    expect(saved.conversation.id).toBe(first);
    expect(saved.messages.map((m: { content: string }) => m.content)).toEqual([
      'hello',
      NOVA_HELLO,
    ]);

    typeLine(stdin, '/bogus');
    await frameShows(lastFrame, 'error: unknown command /bogus: /help lists the commands');

    typeLine(stdin, '/new');
    await vi_waitFor(
      () => [...plain(lastFrame()).matchAll(/conversation (conv_\w+) with/g)].length === 2,
    );
    const second = conversationIdOf(plain(lastFrame()), 1);
    expect(second).not.toBe(first);
    typeLine(stdin, 'hi');
    await vi_waitFor(() => plain(lastFrame()).split(`Nova › ${NOVA_HELLO}`).length === 3);
    expect((await client.messaging.messages.list(second)).data.map((m) => m.content)).toEqual([
      'hi',
      NOVA_HELLO,
    ]);
  });

  test('without a character id: a picker of the org’s characters', async () => {
    const client = t.client();
    const { stdin, lastFrame } = render(
      <ChatApp client={client} listCharacters={() => listCharacters(client, ORG)} />,
    );
    await frameShows(
      lastFrame,
      'Chat with which character?',
      '› Nova (char_nova)',
      'Slow (char_slow)',
    );
    stdin.write(KEYS.down);
    await frameShows(lastFrame, '› Slow (char_slow)');
    stdin.write('\r');
    await frameShows(lastFrame, 'with Slow; /help lists commands');
  });

  test('errors shown in the conversation: an unknown character names the listing command, a refused key says log in', async () => {
    const unknown = render(<ChatApp client={t.client()} characterId="char_nobody" />);
    // (The line wraps at the test terminal's 100 columns.)
    await frameShows(
      unknown.lastFrame,
      "error: no character char_nobody in this API key's org:",
      '`plugsmith chat --list-characters` lists',
    );
    unknown.unmount();

    const badKey = createClient({
      baseUrl: t.emu.url,
      messagingUrl: t.emu.messagingUrl,
      apiKey: 'psk_wrong',
    });
    const refused = render(<ChatApp client={badKey} characterId="char_nova" />);
    await frameShows(
      refused.lastFrame,
      'error: the messaging API refused the API key: run `plugsmith login`',
    );
    typeLine(refused.stdin, 'hello');
    await frameShows(refused.lastFrame, 'error: no conversation: /new starts one, /quit leaves');
    refused.unmount();
    await badKey.close();
  });

  test('on a terminal: /quit and Ctrl+C end the app; a fatal error rejects with it', async () => {
    const client = t.client();
    for (const leave of ['/quit\r', KEYS.ctrlC]) {
      const term = fakeTerminal();
      const running = runChatApp({
        client,
        characterId: 'char_nova',
        io: { ...term, interactive: true } as unknown as Io,
      });
      await vi_waitFor(() => term.stdout.text.includes('Ctrl+C leaves'));
      term.stdin.write(leave);
      await expect(running).resolves.toBeUndefined();
    }

    const term = fakeTerminal();
    const refusal = new UserError('only the emulator lists characters', 2);
    const failing = runChatApp({
      client,
      listCharacters: () => Promise.reject(refusal),
      io: { ...term, interactive: true } as unknown as Io,
    });
    await expect(failing).rejects.toBe(refusal);
  });
});

async function vi_waitFor(check: () => boolean): Promise<void> {
  const { vi } = await import('vitest');
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('not yet');
    },
    { timeout: 5_000, interval: 20 },
  );
}
