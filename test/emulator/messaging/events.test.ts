import { call, emulator, until } from '../../kit/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import {
  EventClient,
  expectPacketInvariants,
  KEY_A,
  messagingSeed,
  newConversation,
  type Packet,
} from '../../kit/messaging.js';
import { emulatorInternals } from '../../../emulator/internals.js';

let emu: Emulator;
beforeAll(async () => {
  // 200 streams of one key below: past the default cap of streams per API key (MAX_STREAMS_PER_API_KEY).
  emu = await emulator({
    seed: messagingSeed(),
    messaging: { keepAliveMs: 200, maxStreamsPerApiKey: 200 },
  });
});

function send(id: string, content: string) {
  return call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
    bearer: KEY_A,
    body: { content },
  });
}

describe('GET /conversations/:id/events', () => {
  it('gives several clients every packet, and one that joins mid-reply the message so far first', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_slow');
    const early = await Promise.all(
      [1, 2, 3].map(() => EventClient.open(emu.messagingUrl, id, KEY_A)),
    );
    await send(id, 'go');
    // Join once a few packets have gone out.
    await early[0].until('three packets', (packets) => packets.length >= 3);
    const late = await EventClient.open(emu.messagingUrl, id, KEY_A);
    const [reference, ...others] = await Promise.all(early.map((c) => c.reply()));
    const final = expectPacketInvariants(reference);
    for (const packets of others) expect(packets).toEqual(reference);

    const joined = await late.reply();
    // The first event carries the content so far as its delta; the rest are the packets that followed.
    expect(joined[0].contentDelta).toBe(joined[0].message.content);
    expect(joined[0].message.isStreaming).toBe(true);
    expect(joined[0].message.content.length).toBeGreaterThan(0);
    const at = reference.findIndex((p) => p.message.content === joined[0].message.content);
    expect(at).toBeGreaterThan(0);
    expect(joined.slice(1)).toEqual(reference.slice(at + 1));
    expect(expectPacketInvariants(joined)).toEqual(final);
  });

  it('sends nothing old to a client that connects after a reply ended', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const first = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await send(id, 'hello');
    await first.reply();
    const after = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await send(id, 'again');
    const packets = await after.reply();
    expect(packets[0].message.id).not.toBe(first.packets[0].message.id);
    expectPacketInvariants(packets);
  });

  it('sends keep-alive comments and forgets clients that leave', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const client = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await until('a keep-alive comment', () => client.comments.includes('keep-alive'), {
      timeoutMs: 3000,
      intervalMs: 10,
    });
    expect(client.comments).toContain('connected');
    expect(client.comments).toContain('keep-alive');
    expect(emulatorInternals(emu).messaging.streams.count(id)).toBe(1);
    client.close();
    await until(
      'the stream forgotten',
      () => emulatorInternals(emu).messaging.streams.count(id) === 0,
      { timeoutMs: 3000, intervalMs: 10 },
    );
    expect(emulatorInternals(emu).messaging.streams.count(id)).toBe(0);
    // A reply with nobody listening still completes.
    await send(id, 'anyone?');
  });

  it('serves 200 clients of one conversation at once', async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const clients = await Promise.all(
      Array.from({ length: 200 }, () => EventClient.open(emu.messagingUrl, id, KEY_A)),
    );
    expect(emulatorInternals(emu).messaging.streams.count(id)).toBe(200);
    await send(id, 'hello');
    const replies = await Promise.all(clients.map((c) => c.reply()));
    const reference = replies[0];
    expectPacketInvariants(reference);
    for (const packets of replies) expect(packets).toEqual(reference);
    for (const c of clients) c.close();
  });

  it('ends open streams when the emulator closes', async () => {
    // Started and closed by the test: what a stream sees when its emulator closes is under test.
    const other = await startEmulator({ seed: messagingSeed() });
    const id = await newConversation(other.messagingUrl, KEY_A, 'char_slow');
    const client = await EventClient.open(other.messagingUrl, id, KEY_A);
    await call(other.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'go' },
    });
    await client.until('a first packet', (packets: Packet[]) => packets.length >= 1);
    await other.close();
    await until('the stream ended', () => client.ended, { timeoutMs: 3000, intervalMs: 10 });
    expect(client.ended).toBe(true);
    // The reply was ended with a final packet saying why, before the stream closed.
    const last = client.packets[client.packets.length - 1];
    expect(last.message.isStreaming).toBe(false);
    expect(last.message.error?.code).toBe('ABORTED');
    expectPacketInvariants(client.packets);
  });
});
