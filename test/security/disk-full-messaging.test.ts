import { join } from 'node:path';
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { createClient } from '../../src/client/index.js';
import { api, call, emulator, own, until } from '../kit/index.js';
import { servePlugin } from '../kit/plugin-server.js';
import { smallDisk, type SmallDisk } from '../kit/small-disk.js';

// Messaging writes the store where no request is told of a refusal: a reply's packets, and the
// AGENT_MESSAGE_RECEIVED a user message sends. Both refusals were swallowed: a reply whose end the disk
// refused stayed streaming in the store (polling clients waited for it until the next start), and a user
// message whose event could not be logged got no delivery, no reply and no word anywhere. Now both are
// told in the emulator's log, and the conversation gets the failure as a reply's error. The store
// closing under them (the emulator stopping) is the one refusal still taken quietly. The delivery log's
// prune is such a write too: a delete the disk refused was swallowed, and is now told. The disk is a
// real 3 MiB tmpfs (mounted as root), or ENOSPC injected into node:fs where mounting is refused.

let disk: SmallDisk;
beforeAll(() => {
  disk = smallDisk();
});
afterAll(() => disk?.remove());

/** Larger than a memory page, so that no tmpfs page the journal already has can hold a line carrying it. */
const LONG_TEXT = 'x'.repeat(9000);

interface Setup {
  emu: Emulator;
  /** What the emulator wrote to its log. */
  lines: string[];
  /** The installation access token of the plugin installed on agent_nova. */
  token: string;
  /** The texts of the AGENT_MESSAGE_RECEIVED events the plugin got. */
  received: string[];
}

/**
 * An emulator whose data dir is on the small disk, with a plugin installed on agent_nova (subscribed to
 * `events`) that may write its character's replies. The disk is full for one write only: the emulator's
 * first line in its log (its word about the refusal) frees it, so that what it stores next can be stored.
 */
async function pluginOnNova(dataDir: string, events: string[]): Promise<Setup> {
  // Whatever the test saw, the next one starts with space.
  onTestFinished(() => disk.free());
  const lines: string[] = [];
  const emu = await emulator({
    dataDir: join(disk.dir, dataDir),
    log: (line) => {
      lines.push(line);
      disk.free();
    },
  });
  const client = createClient({ baseUrl: emu.url, token: emu.token! });
  own(() => client.close());
  let token = '';
  const received: string[] = [];
  const pluginId = await servePlugin(
    emu,
    client,
    {
      name: 'writer',
      description: "writes Nova's replies",
      type: 'EVENT_HANDLER',
      events,
      scopes: ['AGENT_MESSAGE_WRITE'],
    },
    {
      PLUGIN_INSTALLED: (event) => {
        token = event.data.accessToken;
      },
      AGENT_MESSAGE_RECEIVED: (event) => {
        received.push(event.data.message.content);
      },
    },
  );
  await api(emu).data('POST', '/api/agents/agent_nova/plugins', {
    name: 'writer',
    pluginId,
    events,
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  expect(token).not.toBe('');
  return { emu, lines, token, received };
}

async function newConversation(emu: Emulator): Promise<string> {
  const created = await call(emu.messagingUrl, 'POST', '/conversations', {
    bearer: emu.apiKey,
    body: { characterId: 'char_nova' },
  });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

async function messagesOf(emu: Emulator, conversationId: string) {
  const listed = await call(emu.messagingUrl, 'GET', `/conversations/${conversationId}/messages`, {
    bearer: emu.apiKey,
  });
  expect(listed.status).toBe(200);
  return listed.body.data as Array<{
    id: string;
    sender: string;
    content: string;
    isStreaming: boolean;
    error?: { code: string; message: string };
  }>;
}

test('a reply whose end the full disk refused is a 507 to the plugin, told in the log, and its end is stored with the failure on it', async () => {
  const { emu, lines, token } = await pluginOnNova('reply', []);
  const conversationId = await newConversation(emu);
  const path = `/api/agents/agent_nova/conversations/${conversationId}/messages`;
  const first = await call(emu.url, 'POST', path, {
    bearer: token,
    body: { content: LONG_TEXT, isStreaming: true },
  });
  expect(first.status).toBe(201);
  const messageId: string = first.body.data.id;

  disk.fill();
  const last = await call(emu.url, 'POST', path, {
    bearer: token,
    body: { messageId, content: LONG_TEXT, isStreaming: false },
  });
  // The plugin is told its last packet was not stored, never a 200 for a write the disk refused.
  expect(last.status, JSON.stringify(last.body)).toBe(507);
  expect(last.body.error.error).toBe('INSUFFICIENT_STORAGE');

  expect(lines[0]).toMatch(
    new RegExp(
      `^plugsmith emulator: reply message ${messageId} of conversation ${conversationId} could not be stored: Error: ENOSPC`,
    ),
  );
  // The conversation's updatedAt, written in the same turn as the reply's end (before the first refusal is told and the
  // disk freed), met the full disk too: told, never swallowed.
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(
    new RegExp(
      `^plugsmith emulator: conversation ${conversationId}'s updatedAt could not be stored after reply ${messageId}: Error: ENOSPC`,
    ),
  );
  // Stored ended, not left streaming: its text so far, then the failure.
  const reply = (await messagesOf(emu, conversationId)).find((m) => m.id === messageId);
  expect(reply).toMatchObject({
    isStreaming: false,
    content: `${LONG_TEXT}${LONG_TEXT}\n\n[error: the emulator could not store the end of this reply (the emulator's log says why)]`,
    error: { code: 'NOT_STORED' },
  });
});

test("a plugin's first streaming packet the full disk refused is a 507, and the message it began ends at once with the failure, not by the idle timeout", async () => {
  const { emu, lines, token } = await pluginOnNova('first', []);
  const conversationId = await newConversation(emu);
  const path = `/api/agents/agent_nova/conversations/${conversationId}/messages`;

  disk.fill();
  const refused = await call(emu.url, 'POST', path, {
    bearer: token,
    body: { content: LONG_TEXT, isStreaming: true },
  });
  expect(refused.status, JSON.stringify(refused.body)).toBe(507);
  expect(lines[0]).toMatch(
    /^plugsmith emulator: reply message msg_\S+ of conversation \S+ could not be stored: Error: ENOSPC/,
  );

  // Ended in the same request (the disk was freed by the log line), with its text so far and the failure: the plugin has
  // no messageId to go on with.
  const [begun] = (await messagesOf(emu, conversationId)).filter((m) => m.sender === 'CHARACTER');
  expect(begun).toMatchObject({
    isStreaming: false,
    content: `${LONG_TEXT}\n\n[error: the emulator could not store this reply's first packet, and told the plugin so (the emulator's log says why)]`,
    error: { code: 'NOT_STORED' },
  });

  // The plugin sends its text again: a new message, and the one it began is not left streaming beside it.
  const again = await call(emu.url, 'POST', path, {
    bearer: token,
    body: { content: 'hello', isStreaming: false },
  });
  expect(again.status).toBe(201);
  const replies = (await messagesOf(emu, conversationId)).filter((m) => m.sender === 'CHARACTER');
  expect(replies.map((m) => [m.id, m.isStreaming])).toEqual([
    [begun.id, false],
    [again.body.data.id, false],
  ]);
});

test('a user message whose AGENT_MESSAGE_RECEIVED the full disk refused is told in the log, and its reply ends at once with the failure', async () => {
  const { emu, lines, received } = await pluginOnNova('event', ['AGENT_MESSAGE_RECEIVED']);
  const conversationId = await newConversation(emu);
  // The disk fills once the event's delivery is in memory, before its journal line is written (a later turn).
  const filled = emu
    .waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', status: 'pending' })
    .then(() => disk.fill());

  const sent = await call(emu.messagingUrl, 'POST', `/conversations/${conversationId}/messages`, {
    bearer: emu.apiKey,
    body: { content: LONG_TEXT },
  });
  expect(sent.status).toBe(201);
  await filled;

  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    new RegExp(
      `^plugsmith emulator: AGENT_MESSAGE_RECEIVED for message ${sent.body.data.id} of conversation ${conversationId} could not be sent: Error: ENOSPC`,
    ),
  );
  const reply = await until(
    'the reply that says the message was not sent',
    async () =>
      (await messagesOf(emu, conversationId)).find(
        (m) => m.sender === 'CHARACTER' && !m.isStreaming,
      ),
    10_000,
  );
  expect(reply.error).toEqual({
    code: 'DELIVERY_FAILED',
    message:
      "the emulator could not send this message to the agent's plugin (the emulator's log says why)",
  });
  // The refused delivery was taken back: nothing was sent, nothing will be retried.
  expect(emu.deliveries.list({ type: 'AGENT_MESSAGE_RECEIVED', status: 'any' })).toEqual([]);
  expect(received).toEqual([]);
});

test("deliveries past the log's limit whose deletes the full disk refused are told in the log, and stay in it", async () => {
  onTestFinished(() => disk.free());
  const lines: string[] = [];
  const emu = await emulator({
    dataDir: join(disk.dir, 'prune'),
    delivery: { logLimit: 2 },
    log: (line) => lines.push(line),
  });
  const client = createClient({ baseUrl: emu.url, token: emu.token! });
  own(() => client.close());
  // The challenge is the log's first delivery, PLUGIN_INSTALLED its second. PLUGIN_UNINSTALLED, the third, fills the disk
  // as the plugin gets it: when its end is saved, the log is past its limit and the oldest is dropped, on a full disk.
  const pluginId = await servePlugin(
    emu,
    client,
    {
      name: 'pruned',
      description: 'its deliveries are pruned',
      type: 'EVENT_HANDLER',
      events: [],
      scopes: [],
    },
    { PLUGIN_UNINSTALLED: () => disk.fill() },
  );
  const installed = await api(emu).data('POST', '/api/agents/agent_nova/plugins', {
    name: 'pruned',
    pluginId,
    events: [],
    scopes: [],
  });
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  await api(emu).data('DELETE', `/api/agents/agent_nova/plugins/${installed.id}`);

  const told = await until(
    'the log line of the refused drop',
    () => lines.find((line) => line.includes("past the log's limit")),
    10_000,
  );
  expect(told).toMatch(
    /^plugsmith emulator: 1 of 1 deliveries past the log's limit \(2\) could not be dropped, and stay in the log until the next try: Error: ENOSPC/,
  );
  // The challenge stays in the log: nothing said dropped is gone only in memory.
  const types = emu.deliveries.list({ pluginId, status: 'any' }).map((d) => d.type);
  expect(types).toContain('WEBHOOK_CHALLENGE');
});
