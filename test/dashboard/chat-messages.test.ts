import { describe, expect, it } from 'vitest';
import { previewText, upsert } from '../../emulator/dashboard/app/views/chat-messages.js';
import type { Message } from '#contract';

function message(id: string, sender: Message['sender'], createdAt: string, content = ''): Message {
  return {
    id,
    conversationId: 'conv_1',
    sender,
    type: 'TEXT',
    content,
    attachments: [],
    isStreaming: sender === 'CHARACTER',
    createdAt,
    updatedAt: createdAt,
  };
}

describe("the Chat page's message list", () => {
  it("keeps the order messages were written in when a reply's first packet arrives before the POST's answer", () => {
    const at = '2026-01-01T00:00:00.000Z';
    let list = upsert([], message('msg_reply', 'CHARACTER', '2026-01-01T00:00:00.001Z', 'Hi'));
    list = upsert(list, message('msg_user', 'USER', at, 'hello'));
    expect(list.map((m) => m.id)).toEqual(['msg_user', 'msg_reply']);
    // The same instant: the user's message first.
    expect(
      upsert([message('r', 'CHARACTER', at)], message('u', 'USER', at)).map((m) => m.id),
    ).toEqual(['u', 'r']);
  });

  it('replaces a growing reply in place', () => {
    let list = upsert([], message('u', 'USER', '2026-01-01T00:00:00.000Z'));
    list = upsert(list, message('r', 'CHARACTER', '2026-01-01T00:00:01.000Z', 'Hi'));
    list = upsert(list, message('r', 'CHARACTER', '2026-01-01T00:00:01.000Z', 'Hi there'));
    expect(list.map((m) => [m.id, m.content])).toEqual([
      ['u', ''],
      ['r', 'Hi there'],
    ]);
  });
});

describe("a conversation's entry in the Chat page's list", () => {
  const at = '2026-01-01T00:00:00.000Z';
  it('previews the last message as who wrote it and its text on one line', () => {
    expect(previewText(message('u', 'USER', at, 'hello\n\n  there'), 'Nova')).toBe(
      'You: hello there',
    );
    expect(previewText({ ...message('r', 'CHARACTER', at, 'Tell me more.') }, 'Nova')).toBe(
      'Nova: Tell me more.',
    );
  });

  it('names what a message without text carries instead', () => {
    const image = {
      ...message('u', 'USER', at),
      attachments: [{ type: 'IMAGE_URL' as const, content: 'https://example.com/cat.png' }],
    };
    expect(previewText(image, 'Nova')).toBe('You: (IMAGE_URL)');
    expect(previewText(message('r', 'CHARACTER', at), 'Nova')).toBe('Nova: (writing…)');
    const failed = {
      ...message('r', 'CHARACTER', at),
      isStreaming: false,
      error: { code: 'LLM_ERROR', message: 'the model did not answer' },
    };
    expect(previewText(failed, 'Nova')).toBe('Nova: (LLM_ERROR)');
    expect(previewText(message('u', 'USER', at), 'Nova')).toBe('You: (no text)');
  });
});
