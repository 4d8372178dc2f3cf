import { expect, test } from 'vitest';
import { startEmulator } from '../../../emulator/index.js';
import { emulatorInternals } from '../../../emulator/internals.js';
import { call } from '../../kit/index.js';

// startEmulator rather than the kit's emulator(): this test closes the emulator itself, under a reply.

// A reply's writes that the store refuses are told in the emulator's log (test/security/disk-full-messaging.test.ts),
// all but the one refusal that is no failure: the store closing under a reply while the emulator stops. The next
// start ends such a reply as INTERRUPTED; the log stays quiet.

test('a reply the store closed under (the emulator stopping) ends without a word in the log', async () => {
  const lines: string[] = [];
  // A packet every 10 s: the reply is still streaming when the emulator stops.
  const emu = await startEmulator({
    log: (line) => lines.push(line),
    messaging: { packetIntervalMs: 10_000 },
  });
  try {
    const conversation = await call(emu.messagingUrl, 'POST', '/conversations', {
      bearer: emu.apiKey,
      body: { characterId: 'char_nova' },
    });
    expect(conversation.status).toBe(201);
    const sent = await call(
      emu.messagingUrl,
      'POST',
      `/conversations/${conversation.body.data.id}/messages`,
      { bearer: emu.apiKey, body: { content: 'tell me a long story' } },
    );
    expect(sent.status).toBe(201);
    const streaming = emulatorInternals(emu).db.messages.where('isStreaming', true);
    expect(streaming).toHaveLength(1);
    // The store closes first, so the reply's last packet (ABORTED, sent by close()) meets a closed store.
    await emulatorInternals(emu).store.close();
  } finally {
    await emu.close();
  }
  expect(lines).toEqual([]);
});
