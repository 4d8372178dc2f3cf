import { call, emulator } from '../../kit/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import {
  EventClient,
  expectPacketInvariants,
  KEY_A,
  messagingSeed,
  newConversation,
  pollReply,
  type Message,
} from '../../kit/messaging.js';
import { emulatorInternals } from '../../../emulator/internals.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ seed: messagingSeed() });
});

describe('conversations', () => {
  it('creates and reads a conversation in the documented shape', async () => {
    const created = await call(emu.messagingUrl, 'POST', '/conversations', {
      bearer: KEY_A,
      body: { characterId: 'char_fast' },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual([
      'characterId',
      'createdAt',
      'id',
      'updatedAt',
    ]);
    const read = await call(emu.messagingUrl, 'GET', `/conversations/${created.body.data.id}`, {
      bearer: KEY_A,
    });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ok: true, data: created.body.data });
  });

  it('refuses an unknown character, a missing one and extra fields with details', async () => {
    for (const body of [
      { characterId: 'char_nope' },
      {},
      { characterId: 'char_fast', extra: 1 },
      { characterId: 42 },
    ]) {
      const res = await call(emu.messagingUrl, 'POST', '/conversations', { bearer: KEY_A, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.ok).toBe(false);
      expect(res.body.error.error).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    const res = await call(emu.messagingUrl, 'POST', '/conversations', {
      bearer: KEY_A,
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });

  it('gives 404 for an unknown conversation on every route', async () => {
    for (const [method, path] of [
      ['GET', '/conversations/conv_missing'],
      ['GET', '/conversations/conv_missing/messages'],
      ['POST', '/conversations/conv_missing/messages'],
      ['GET', '/conversations/conv_missing/events'],
    ] as const) {
      const res = await call(emu.messagingUrl, method, path, {
        bearer: KEY_A,
        body: method === 'POST' ? { content: 'hi' } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.error).toBe('NOT_FOUND');
    }
  });
});

describe('messages', () => {
  it('answers a POST with the user message at once, then the reply streams (scripted engine)', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    expect(events.status).toBe(200);
    expect(String(events.headers['content-type'])).toContain('text/event-stream');
    const sent = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hello you', type: 'TEXT' },
    });
    expect(sent.status).toBe(201);
    expect(sent.body.data).toMatchObject({
      conversationId: id,
      sender: 'USER',
      type: 'TEXT',
      content: 'hello you',
      attachments: [],
      isStreaming: false,
    });
    const packets = await events.reply();
    const final = expectPacketInvariants(packets);
    expect(final.content).toBe('Hi there, Fast here!');
    expect(packets.length).toBe(Math.ceil(final.content.length / 3) + 1); // packets of 3, then the empty final one
    expect(packets[packets.length - 1].contentDelta).toBe('');

    const listed = await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, {
      bearer: KEY_A,
    });
    expect(listed.body.data.map((m: Message) => m.sender)).toEqual(['USER', 'CHARACTER']);
    expect(listed.body.data[1]).toEqual(final);
    expect(listed.body.meta.pagination).toEqual({
      type: 'cursor',
      limit: 50,
      hasNext: false,
      nextCursor: null,
    });
    // The record in the store is the final one.
    expect(emulatorInternals(emu).db.messages.get(final.id)).toEqual(final);
  });

  it('lets polling and the conversation stream see the same growing message', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_slow');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'anything' },
    });
    const polled = await pollReply(emu.messagingUrl, id, KEY_A);
    const packets = await events.reply();
    const final = expectPacketInvariants(packets);
    expect(final.content).toBe('One two three four five six seven eight nine ten.');
    // Polling saw it grow: several snapshots, each a packet's state, the last the final message.
    expect(polled.length).toBeGreaterThan(2);
    expect(polled[0].isStreaming).toBe(true);
    expect(polled[polled.length - 1]).toEqual(final);
    const states = new Map(
      packets.map((p) => [p.message.content + '|' + p.message.isStreaming, p.message]),
    );
    for (const snapshot of polled)
      expect(states.get(snapshot.content + '|' + snapshot.isStreaming)).toEqual(snapshot);
  });

  it('pages with after and limit, oldest first', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    for (let i = 1; i <= 3; i++) {
      await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
        bearer: KEY_A,
        body: { content: `message ${i}` },
      });
      await events.reply(i);
    }
    const all = (
      await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, { bearer: KEY_A })
    ).body.data as Message[];
    expect(all.map((m) => m.sender)).toEqual([
      'USER',
      'CHARACTER',
      'USER',
      'CHARACTER',
      'USER',
      'CHARACTER',
    ]);
    expect(all.filter((m) => m.sender === 'USER').map((m) => m.content)).toEqual([
      'message 1',
      'message 2',
      'message 3',
    ]);
    const first = await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages?limit=2`, {
      bearer: KEY_A,
    });
    expect(first.body.data).toEqual(all.slice(0, 2));
    expect(first.body.meta.pagination).toEqual({
      type: 'cursor',
      limit: 2,
      hasNext: true,
      nextCursor: all[1].id,
    });
    const next = await call(
      emu.messagingUrl,
      'GET',
      `/conversations/${id}/messages?after=${all[1].id}&limit=3`,
      { bearer: KEY_A },
    );
    expect(next.body.data).toEqual(all.slice(2, 5));
    const tail = await call(
      emu.messagingUrl,
      'GET',
      `/conversations/${id}/messages?after=${all[5].id}`,
      { bearer: KEY_A },
    );
    expect(tail.body.data).toEqual([]);
    expect(tail.body.meta.pagination.hasNext).toBe(false);
  });

  it('refuses bad listing queries with details', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=2.5',
      'after=msg_unknown',
      'colour=red',
      'after=a&after=b',
    ]) {
      const res = await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages?${query}`, {
        bearer: KEY_A,
      });
      expect(res.status, query).toBe(400);
      expect(res.body.error.message).toBe('Invalid query parameters');
      expect(res.body.error.details.length, query).toBeGreaterThan(0);
    }
  });

  it('refuses every bad message with a 4xx and details', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const bad: unknown[] = [
      {},
      { content: '' },
      { content: '   \n ' },
      { content: 'x'.repeat(32 * 1024 + 1) },
      { content: 'hi', type: 'VIDEO' },
      { content: 42 },
      { content: 'hi', attachments: 'nope' },
      { content: 'hi', attachments: [{ type: 'FILE', content: 'https://example.com/a.png' }] },
      { content: 'hi', attachments: [{ type: 'IMAGE_URL' }] },
      { content: 'hi', attachments: [{ type: 'IMAGE_URL', content: 'not a url' }] },
      { content: 'hi', attachments: [{ type: 'IMAGE_URL', content: 'ftp://example.com/a.png' }] },
      {
        content: 'hi',
        attachments: [{ type: 'IMAGE_URL', content: 'https://example.com/a.png', extra: true }],
      },
      {
        content: 'hi',
        attachments: Array.from({ length: 11 }, () => ({
          type: 'IMAGE_URL',
          content: 'https://example.com/a.png',
        })),
      },
      { content: 'not a url', type: 'IMAGE' },
      { content: 'file:///etc/passwd', type: 'AUDIO' },
      { content: '[1, 2]', type: 'FORM' },
      { content: '{oops', type: 'FORM' },
      { content: 'hi', sender: 'CHARACTER' },
    ];
    for (const body of bad) {
      const res = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
        bearer: KEY_A,
        body,
      });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(res.body.error.error).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.length).toBeGreaterThan(0);
      expect(res.body.error.details[0]).toMatchObject({
        code: expect.any(String),
        path: expect.any(Array),
        message: expect.any(String),
      });
    }
    const huge = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(huge.status).toBe(413);
    // Nothing was stored, no reply was started.
    expect(
      (await call(emu.messagingUrl, 'GET', `/conversations/${id}/messages`, { bearer: KEY_A })).body
        .data,
    ).toEqual([]);
  });

  it('accepts image, audio and form messages and image attachments', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    const good = [
      {
        content: 'look at this',
        type: 'TEXT',
        attachments: [{ type: 'IMAGE_URL', content: 'https://example.com/cat.png' }],
      },
      { content: 'https://example.com/cat.png', type: 'IMAGE' },
      { content: 'http://example.com/voice.ogg', type: 'AUDIO' },
      { content: '{"email":"a@example.com","subscribe":true}', type: 'FORM' },
    ];
    for (const [i, body] of good.entries()) {
      const res = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
        bearer: KEY_A,
        body,
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ ...body, sender: 'USER', isStreaming: false });
      expectPacketInvariants(await events.reply(i + 1));
    }
  });

  it('runs replies of one conversation one after the other', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_slow');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'first' },
    });
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'second' },
    });
    await events.reply(2);
    const ids = [...new Set(events.packets.map((p) => p.message.id))];
    expect(ids).toHaveLength(2);
    // Every packet of the first reply comes before any of the second.
    const lastOfFirst = events.packets.map((p) => p.message.id).lastIndexOf(ids[0]);
    const firstOfSecond = events.packets.findIndex((p) => p.message.id === ids[1]);
    expect(lastOfFirst).toBeLessThan(firstOfSecond);
    expectPacketInvariants(events.packets.filter((p) => p.message.id === ids[0]));
    expectPacketInvariants(events.packets.filter((p) => p.message.id === ids[1]));
  });
});
