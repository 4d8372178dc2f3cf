import { call, emulator } from '../../kit/index.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, temporaryDataDir } from '../../../emulator/index.js';
import {
  EventClient,
  expectPacketInvariants,
  KEY_A,
  messagingSeed,
  newConversation,
  type Message,
} from '../../kit/messaging.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the same dataDir.

describe('messaging durability', () => {
  it('keeps conversations and final replies across a restart, and ends replies a crash left streaming', async () => {
    const { dir, remove } = await temporaryDataDir('plugsmith-messaging-');
    onTestFinished(remove);
    const first = await startEmulator({ seed: messagingSeed(), dataDir: dir });
    const id = await newConversation(first.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(first.messagingUrl, id, KEY_A);
    await call(first.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hello' },
    });
    const final = expectPacketInvariants(await events.reply());
    // A record as a crash mid-reply leaves it: created (streaming), never ended.
    const torn: Message = {
      ...final,
      id: 'msg_torn',
      content: 'Half',
      isStreaming: true,
      createdAt: final.updatedAt,
      updatedAt: final.updatedAt,
    };
    await emulatorInternals(first).db.messages.put(torn as never);
    await first.close();

    const second = await startEmulator({ dataDir: dir });
    try {
      expect(
        (await call(second.messagingUrl, 'GET', `/conversations/${id}`, { bearer: KEY_A })).status,
      ).toBe(200);
      const listed = (
        await call(second.messagingUrl, 'GET', `/conversations/${id}/messages`, { bearer: KEY_A })
      ).body.data as Message[];
      expect(listed.map((m) => m.sender)).toEqual(['USER', 'CHARACTER', 'CHARACTER']);
      expect(listed[1]).toEqual(final);
      expect(listed[2]).toMatchObject({
        id: 'msg_torn',
        isStreaming: false,
        error: { code: 'INTERRUPTED' },
      });
      expect(listed[2].content.startsWith('Half\n\n[error: ')).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('empties conversations on reset and keeps serving', async () => {
    const emu = await emulator({ seed: messagingSeed() });
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_slow');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'go' },
    });
    await events.until('a first packet', (packets) => packets.length > 0);
    await emu.reset();
    expect(
      (await call(emu.messagingUrl, 'GET', `/conversations/${id}`, { bearer: KEY_A })).status,
    ).toBe(404);
    const again = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const fresh = await EventClient.open(emu.messagingUrl, again, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${again}/messages`, {
      bearer: KEY_A,
      body: { content: 'hello' },
    });
    expect(expectPacketInvariants(await fresh.reply()).content).toBe('Hi there, Fast here!');
    // Nothing of the old conversation came back into the store after the reset.
    expect(emulatorInternals(emu).db.messages.where('conversationId', id)).toEqual([]);
  });
});
