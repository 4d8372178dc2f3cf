import { call } from '../kit/index.js';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { answerProperly, WebhookServer } from '../kit/webhook-server.js';
import { EventClient, KEY_A, messagingSeed, newConversation } from '../kit/messaging.js';
import { emulatorInternals } from '../../emulator/internals.js';

// startEmulator rather than the kit's emulator() in places: this file closes each describe's emulator after its tests (tearDown).

// Conversation streams whose clients never read: each one made the emulator hold up to
// 16 MiB of unsent reply packets, and nothing bounded how many there were (24 of them took the
// process from 250 to 650 MB). The emulator now bounds what it holds for slow readers in all and
// per API key, dropping the reader furthest behind first. Real sockets that never read, a real
// plugin writing real 1 MB replies, and the emulator's own figure of what its streams hold.

const USER_TOKEN = 'pst_test_user_a';
const MiB = 1024 * 1024;
/** One packet of a plugin reply: as long as a packet may be. */
const PACKET = 'x'.repeat(32_768);
/** Packets of one reply: each event carries the whole text so far, so a reply sends ~1.4 MB to every stream. */
const PACKETS = 8;

let emu: Emulator;
let hook: WebhookServer;
let instanceToken = '';

async function setUp(streamBuffers: { total?: number; perApiKey?: number }): Promise<void> {
  hook = await WebhookServer.start(answerProperly);
  emu = await startEmulator({ seed: messagingSeed(), messaging: { streamBuffers } });
  const created = await call(emu.url, 'POST', '/api/plugins', {
    token: USER_TOKEN,
    body: {
      name: 'Big replier',
      type: 'EVENT_HANDLER',
      orgId: 'org_a',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      webhookUrl: hook.url,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const pluginId = created.body.data.id as string;
  expect(
    (await call(emu.url, 'POST', `/api/plugins/${pluginId}/verify-webhook`, { token: USER_TOKEN }))
      .body.data.verified,
  ).toBe(true);
  const installed = await call(emu.url, 'POST', '/api/agents/agent_a/plugins', {
    token: USER_TOKEN,
    body: {
      name: 'Big replier on agent A',
      pluginId,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const [received] = await hook.waitFor(1, 'PLUGIN_INSTALLED');
  instanceToken = (received.event.data as { accessToken: string }).accessToken;
}

/** Closes what setUp started, after its describe's tests (the next describe starts its own emulator). */
async function tearDown(): Promise<void> {
  await emu?.close();
  await hook?.close();
}

/** The plugin streams one 256 KiB reply into a conversation, packet by packet. */
async function reply(conversationId: string): Promise<void> {
  const path = `/api/agents/agent_a/conversations/${conversationId}/messages`;
  const auth = `Bearer ${instanceToken}`;
  const first = await call(emu.url, 'POST', path, { token: auth, body: { content: PACKET } });
  expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(201);
  const messageId = first.body.data.id as string;
  for (let n = 1; n < PACKETS; n++)
    expect(
      (await call(emu.url, 'POST', path, { token: auth, body: { content: PACKET, messageId } }))
        .status,
    ).toBe(200);
  expect(
    (
      await call(emu.url, 'POST', path, {
        token: auth,
        body: { content: '', messageId, isStreaming: false },
      })
    ).status,
  ).toBe(200);
}

/** A client of a conversation stream that reads the response head, then never reads again. */
async function stalledReader(conversationId: string, key: string): Promise<Socket> {
  const { port } = new URL(emu.messagingUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined); // a reset is one way of being dropped
  onTestFinished(() => void socket.destroy());
  socket.write(
    `GET /conversations/${conversationId}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
  );
  const [head] = (await once(socket, 'data')) as [Buffer];
  expect(head.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
  socket.pause();
  return socket;
}

/** What the emulator holds unsent for its conversation streams, once the current writes have settled. */
async function held() {
  await new Promise((resolve) => setImmediate(resolve));
  return emulatorInternals(emu).messaging.streams.buffered();
}

/** Issues another API key of org A (through the admin API). */
async function secondKey(): Promise<string> {
  const issued = await call(emu.url, 'POST', '/_emulator/api-keys', {
    headers: emu.adminHeaders,
    body: { orgId: 'org_a' },
  });
  expect(issued.status, JSON.stringify(issued.body)).toBe(201);
  return issued.body.data.key as string;
}

describe('all conversation streams together', () => {
  const TOTAL = 6 * MiB;
  beforeAll(() => setUp({ total: TOTAL }));
  afterAll(tearDown);

  it('hold at most the total bound for readers that never read, dropping the one furthest behind first; a reading client keeps its stream', async () => {
    const conversations: string[] = [];
    for (let i = 0; i < 4; i++)
      conversations.push(await newConversation(emu.messagingUrl, KEY_A, 'char_fast'));
    for (const id of conversations) await stalledReader(id, KEY_A);
    const readingId = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const reading = await EventClient.open(emu.messagingUrl, readingId, KEY_A);
    const streams = emulatorInternals(emu).messaging.streams;

    // The first conversation gets two replies a round, the others one: its reader falls furthest behind.
    const open = () => conversations.map((id) => streams.count(id));
    let firstDrop: number[] | null = null;
    let most = 0;
    const ROUNDS = 8;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, id] of conversations.entries()) {
        for (let n = 0; n < (i === 0 ? 2 : 1); n++) {
          await reply(id);
          const now = await held();
          most = Math.max(most, now.total);
          if (firstDrop === null && open().includes(0)) firstDrop = open();
        }
      }
      await reply(readingId);
    }

    // 4 stalled readers were sent some 56 MB; the kernel's socket buffers take a few MB of each, the
    // emulator held the rest (each under the 16 MiB per stream) until the total bound stopped it.
    expect(firstDrop, 'no stream was dropped').not.toBeNull();
    expect(firstDrop).toEqual([0, 1, 1, 1]);
    expect(most).toBeLessThanOrEqual(TOTAL);
    expect(streams.buffered().dropped).toBeGreaterThanOrEqual(1);

    // The reading client got every reply and is still connected.
    await reading.until(
      `the final packets of all ${ROUNDS} replies`,
      (packets) => packets.filter((p) => !p.message.isStreaming).length >= ROUNDS,
    );
    expect(
      reading.packets.filter((p) => !p.message.isStreaming).map((p) => p.message.content.length),
    ).toEqual(Array(ROUNDS).fill(PACKETS * PACKET.length));
    expect(streams.count(readingId)).toBe(1);
    expect(reading.ended).toBe(false);
  });
});

describe("one API key's conversation streams", () => {
  const PER_KEY = 5 * MiB;
  beforeAll(() => setUp({ perApiKey: PER_KEY }));
  afterAll(tearDown);

  it("hold at most the per-key bound: the key with many slow readers loses its slowest, another key's reader stays", async () => {
    const otherKey = await secondKey();
    const many: string[] = [];
    for (let i = 0; i < 3; i++)
      many.push(await newConversation(emu.messagingUrl, KEY_A, 'char_fast'));
    const lone = await newConversation(emu.messagingUrl, otherKey, 'char_fast');
    for (const id of many) await stalledReader(id, KEY_A);
    await stalledReader(lone, otherKey);
    const streams = emulatorInternals(emu).messaging.streams;

    let most = 0;
    let loneMost = 0;
    for (let round = 0; round < 4; round++) {
      for (const id of [...many, lone]) {
        await reply(id);
        await held();
        most = Math.max(
          most,
          many.reduce((sum, m) => sum + streams.heldFor(m), 0),
        );
        loneMost = Math.max(loneMost, streams.heldFor(lone));
      }
    }

    // KEY_A's three readers were each sent 5.6 MB and the lone reader of the other key as much: only KEY_A went over.
    expect(many.map((id) => streams.count(id))).toContain(0);
    expect(streams.count(lone)).toBe(1);
    expect(most).toBeLessThanOrEqual(PER_KEY);
    // The lone reader was behind too (so it was not kept for being quick), within its own key's bound.
    expect(loneMost).toBeGreaterThan(0);
  });
});

it('startEmulator refuses a stream buffer bound that is not a whole number of bytes, before it opens anything', async () => {
  await expect(startEmulator({ messaging: { streamBuffers: { total: -1 } } })).rejects.toThrow(
    'messaging.streamBuffers.total must be a whole number of bytes',
  );
  await expect(startEmulator({ messaging: { streamBuffers: { perApiKey: 1.5 } } })).rejects.toThrow(
    'messaging.streamBuffers.perApiKey',
  );
});
