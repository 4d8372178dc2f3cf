import { describe, expect, test } from 'vitest';
import { createClient } from '../../../src/client/index.js';
import {
  ChatClosedError,
  ChatSession,
  ConversationMismatch,
  type ChatUpdate,
} from '../../../src/ui/chat/chat-session.js';
import { describeChatError } from '../../../src/ui/chat/chat-errors.js';
import { API_KEY, messagingProxy, NOVA_HELLO, SLOW_REPLY, useChatEmulator } from './chat-env.js';

const t = useChatEmulator();

/** A session and the updates it announced, in order. */
function recorded(session: ChatSession) {
  const updates: ChatUpdate[] = [];
  session.on((u) => updates.push(u));
  const packets = () =>
    updates.filter(
      (u): u is Extract<ChatUpdate, { type: 'CHARACTER_MESSAGE_SENT' }> =>
        u.type === 'CHARACTER_MESSAGE_SENT',
    );
  const notices = () =>
    updates
      .filter((u): u is Extract<ChatUpdate, { type: 'NOTICE' }> => u.type === 'NOTICE')
      .map((n) => n.text);
  return { updates, packets, notices };
}

describe.concurrent('ChatSession', () => {
  test('a reply streams over the conversation stream: the user message first, then packets whose deltas add up to the reply', async () => {
    const client = t.client();
    const session = new ChatSession(client, 'char_nova');
    const { updates, packets } = recorded(session);
    const conversation = await session.start();
    const reply = await session.send('hello');
    session.close();

    expect(reply).toMatchObject({ sender: 'CHARACTER', content: NOVA_HELLO, isStreaming: false });
    expect(updates.map((u) => u.type).slice(0, 3)).toEqual([
      'CONVERSATION_STARTED',
      'USER_MESSAGE_SENT',
      'CHARACTER_MESSAGE_SENT',
    ]);
    // Nine packets of 8 characters and a final one: only the conversation stream delivers them one by one.
    expect(packets().length).toBeGreaterThanOrEqual(5);
    expect(
      packets()
        .map((p) => p.contentDelta)
        .join(''),
    ).toBe(NOVA_HELLO);
    expect(packets().at(-1)!.message.isStreaming).toBe(false);
    expect(session.mode).toBe('stream');
    const listed = await client.messaging.messages.list(conversation.id);
    expect(session.messages.map((m) => [m.id, m.sender, m.content])).toEqual(
      listed.data.map((m) => [m.id, m.sender, m.content]),
    );
  });

  test('a message sent at once after start waits for the stream to open, so a fast reply still comes packet by packet', async () => {
    // The stream opens 300 ms late; Nova's whole reply takes about 50 ms.
    const proxy = await messagingProxy(t.emu.messagingUrl, { delayEventsMs: 300 });
    const client = createClient({ baseUrl: t.emu.url, messagingUrl: proxy.url, apiKey: API_KEY });
    try {
      const session = new ChatSession(client, 'char_nova');
      const { packets, notices } = recorded(session);
      await session.start();
      const reply = await session.send('hello');
      session.close();
      expect(reply).toMatchObject({ content: NOVA_HELLO, isStreaming: false });
      expect(packets().length).toBeGreaterThanOrEqual(5);
      expect(
        packets()
          .map((p) => p.contentDelta)
          .join(''),
      ).toBe(NOVA_HELLO);
      expect(notices()).toEqual([]);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  test('without a conversation stream it says so and polls: the reply still arrives whole', async () => {
    const proxy = await messagingProxy(t.emu.messagingUrl, { refuseEvents: true });
    const client = createClient({ baseUrl: t.emu.url, messagingUrl: proxy.url, apiKey: API_KEY });
    const session = new ChatSession(client, 'char_slow', { pollIntervalMs: 40 });
    const { packets, notices } = recorded(session);
    try {
      await session.start();
      const reply = await session.send('count for me');
      expect(reply.content).toBe(SLOW_REPLY);
      expect(session.mode).toBe('poll');
      expect(notices().join('\n')).toMatch(
        /conversation stream is unavailable \(HTTP 404\); polling for replies every 40 ms/,
      );
      // Polls see the reply grow: several packets, each only what is new.
      expect(packets().length).toBeGreaterThan(2);
      expect(
        packets()
          .map((p) => p.contentDelta)
          .join(''),
      ).toBe(SLOW_REPLY);
      // The next reply is polled too.
      expect((await session.send('again')).content).toBe(SLOW_REPLY);
    } finally {
      session.close();
      await client.close();
      await proxy.close();
    }
  });

  test('a dropped stream reconnects with a notice; the reply completes without repeating text', async () => {
    const proxy = await messagingProxy(t.emu.messagingUrl);
    const client = createClient({ baseUrl: t.emu.url, messagingUrl: proxy.url, apiKey: API_KEY });
    const session = new ChatSession(client, 'char_slow', { reconnectDelayMs: 20 });
    const { packets, notices } = recorded(session);
    let dropped = false;
    session.on((u) => {
      // Cut the stream once the reply has begun.
      if (u.type === 'CHARACTER_MESSAGE_SENT' && !dropped) {
        dropped = true;
        proxy.dropStreams();
      }
    });
    try {
      await session.start();
      const reply = await session.send('count for me');
      expect(dropped).toBe(true);
      expect(reply.content).toBe(SLOW_REPLY);
      expect(
        notices().some((n) => /conversation stream (dropped|ended).*reconnecting/.test(n)),
      ).toBe(true);
      expect(proxy.eventRequests()).toBeGreaterThanOrEqual(2);
      expect(
        packets()
          .map((p) => p.contentDelta)
          .join(''),
      ).toBe(SLOW_REPLY);
      expect(session.mode).toBe('stream');
    } finally {
      session.close();
      await client.close();
      await proxy.close();
    }
  });

  test('--conversation resumes: its messages come first; another character’s conversation is refused', async () => {
    const client = t.client();
    const first = new ChatSession(client, 'char_nova');
    const conversation = await first.start();
    await first.send('hello');
    first.close();

    const again = new ChatSession(client, undefined, { conversationId: conversation.id });
    const { updates } = recorded(again);
    await again.start();
    const started = updates[0] as Extract<ChatUpdate, { type: 'CONVERSATION_STARTED' }>;
    expect(started.conversation.id).toBe(conversation.id);
    expect(started.messages.map((m) => m.content)).toEqual(['hello', NOVA_HELLO]);
    expect((await again.send('who are you?')).content).toBe('Tell me more.');
    again.close();

    const mismatch = new ChatSession(client, 'char_slow', { conversationId: conversation.id });
    const error = await mismatch.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversationMismatch);
    expect(describeChatError(error)).toEqual({
      message: expect.stringContaining('is with char_nova, not char_slow'),
      exitCode: 2,
    });
  });

  test('/new starts another conversation with the same character', async () => {
    const session = new ChatSession(t.client(), 'char_nova');
    const first = await session.start();
    await session.send('hello');
    const second = await session.newConversation();
    expect(second.id).not.toBe(first.id);
    expect(second.characterId).toBe('char_nova');
    expect(session.messages).toEqual([]);
    expect((await session.send('hi')).content).toBe(NOVA_HELLO);
    session.close();
  });

  test('errors people can act on: a refused key, an unknown character or conversation, an unreachable API', async () => {
    const badKey = createClient({
      baseUrl: t.emu.url,
      messagingUrl: t.emu.messagingUrl,
      apiKey: 'psk_wrong',
    });
    const refused = await new ChatSession(badKey, 'char_nova').start().catch((e: unknown) => e);
    expect(describeChatError(refused)).toEqual({
      message: expect.stringContaining('run `plugsmith login`'),
      exitCode: 3,
    });

    const unknown = await new ChatSession(t.client(), 'char_nobody')
      .start()
      .catch((e: unknown) => e);
    expect(describeChatError(unknown, { characterId: 'char_nobody' })).toEqual({
      message:
        "no character char_nobody in this API key's org: `plugsmith chat --list-characters` lists them (emulator)",
      exitCode: 4,
    });

    const gone = await new ChatSession(t.client(), undefined, { conversationId: 'conv_nope' })
      .start()
      .catch((e: unknown) => e);
    expect(describeChatError(gone, { conversationId: 'conv_nope' })?.message).toContain(
      'no conversation conv_nope',
    );

    const proxy = await messagingProxy(t.emu.messagingUrl);
    await proxy.close();
    const offline = createClient({
      baseUrl: proxy.url,
      messagingUrl: proxy.url,
      apiKey: API_KEY,
      retries: 0,
    });
    const unreachable = await new ChatSession(offline, 'char_nova')
      .start()
      .catch((e: unknown) => e);
    expect(describeChatError(unreachable)).toEqual({
      message: expect.stringContaining('cannot reach the messaging API'),
      exitCode: 7,
    });
    expect(describeChatError(new TypeError('a bug'))).toBeUndefined();
    await Promise.all([badKey.close(), offline.close()]);
  });

  test('close() during a reply ends the wait with ChatClosedError', async () => {
    const session = new ChatSession(t.client(), 'char_slow');
    await session.start();
    const pending = session.send('count for me');
    session.on((u) => {
      if (u.type === 'CHARACTER_MESSAGE_SENT') session.close();
    });
    await expect(pending).rejects.toBeInstanceOf(ChatClosedError);
    expect(session.busy).toBe(false);
  });
});
