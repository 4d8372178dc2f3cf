import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import type { Message } from '../../../src/client/index.js';
import type { ChatEntry } from '../../../src/ui/chat/use-chat-session.js';
import { ConversationView } from '../../../src/ui/chat/ConversationView.js';
import { plain } from './ink-helpers.js';

afterEach(cleanup);

const at = {
  conversationId: 'conv_1',
  createdAt: '2025-01-02T03:04:05.000Z',
  updatedAt: '2025-01-02T03:04:05.000Z',
};
const user: Message = {
  ...at,
  id: 'msg_1',
  sender: 'USER',
  type: 'TEXT',
  content: 'hello',
  attachments: [{ type: 'IMAGE_URL', content: 'https://example.com/cat.png' }],
  isStreaming: false,
};
const reply = (content: string, isStreaming = true): Message => ({
  ...at,
  id: 'msg_2',
  sender: 'CHARACTER',
  type: 'TEXT',
  content,
  attachments: [],
  isStreaming,
});
const entry = (message: Message): ChatEntry => ({
  key: `message:${message.id}`,
  kind: 'message',
  message,
});

describe('ConversationView', () => {
  test('a spinner until the first packet, then the reply growing packet by packet, then filed once', () => {
    const entries = [entry(user)];
    const view = render(
      <ConversationView entries={entries} live={[]} waiting characterName="Nova" />,
    );
    expect(plain(view.lastFrame())).toContain('you › hello');
    expect(plain(view.lastFrame())).toContain('[image] https://example.com/cat.png');
    expect(plain(view.lastFrame())).toContain('Nova is writing…');

    let content = '';
    for (const delta of ['Hi', ' there', '! I am', ' Nova.']) {
      content += delta;
      view.rerender(
        <ConversationView entries={entries} live={[reply(content)]} waiting characterName="Nova" />,
      );
      const frame = plain(view.lastFrame());
      expect(frame).toContain(`Nova › ${content}`);
      expect(frame).not.toContain('is writing');
    }
    view.rerender(
      <ConversationView
        entries={[...entries, entry(reply(content, false))]}
        live={[]}
        waiting={false}
        characterName="Nova"
      />,
    );
    const frame = plain(view.lastFrame());
    expect(frame.split('Nova › Hi there! I am Nova.').length - 1).toBe(1);
    expect(frame.indexOf('you › hello')).toBeLessThan(frame.indexOf('Nova › Hi there'));
  });

  test('notices by level; a failed reply and a non-text message', () => {
    const entries: ChatEntry[] = [
      { key: 'notice:0', kind: 'notice', level: 'info', text: 'conversation conv_1 with Nova' },
      {
        key: 'notice:1',
        kind: 'notice',
        level: 'warning',
        text: 'the event stream dropped; reconnecting…',
      },
      {
        key: 'notice:2',
        kind: 'notice',
        level: 'error',
        text: 'the messaging API refused the API key: run `plugsmith login`',
      },
      entry({
        ...reply('Half a reply [error: the LLM is unreachable]', false),
        error: { code: 'ENGINE_FAILED', message: 'x' },
      }),
      entry({
        ...at,
        id: 'msg_3',
        sender: 'CHARACTER',
        type: 'FORM',
        content: '{"name":"?"}',
        attachments: [],
        isStreaming: false,
      }),
    ];
    const frame = plain(
      render(
        <ConversationView entries={entries} live={[]} waiting={false} characterName="Nova" />,
      ).lastFrame(),
    );
    expect(frame).toContain('conversation conv_1 with Nova');
    expect(frame).toContain('warning: the event stream dropped; reconnecting…');
    expect(frame).toContain('error: the messaging API refused the API key: run `plugsmith login`');
    expect(frame).toContain('Nova › Half a reply [error: the LLM is unreachable]');
    expect(frame).toContain('Nova › [FORM] {"name":"?"}');
  });

  test("a character's name, reply, attachments and notices reach the terminal with their control characters as visible text", () => {
    const osc52 = '\u001b]52;c;cm0gLXJmIH4K\u0007';
    const evil: Message = {
      ...reply(`one${osc52}\ntwo\u009b2J`, false),
      attachments: [{ type: 'IMAGE_URL', content: `https://x.test/${osc52}` }],
    };
    const entries: ChatEntry[] = [
      entry(evil),
      { key: 'notice:0', kind: 'notice', level: 'error', text: `bad ${osc52}` },
    ];
    const view = render(
      <ConversationView
        entries={entries}
        live={[]}
        waiting
        characterName={'Eve\u001b]0;pwned\u0007'}
      />,
    );
    const frame = view.lastFrame() ?? '';
    // ink's own colours (CSI ... m) are the only escape sequences left.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matches the terminal's escape sequences, which start with ESC
    expect(frame.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/,
    );
    const text = plain(frame);
    expect(text).toContain('Eve\\x1b]0;pwned\\x07 › one\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(text).toContain('two\\x9b2J');
    expect(text).toContain('[image] https://x.test/\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(text).toContain('error: bad \\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(text).toContain('Eve\\x1b]0;pwned\\x07 is writing…');
  });
});
