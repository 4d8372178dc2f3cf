import { call, emulator, tempDir } from '../../kit/index.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { KEY_A, messagingSeed } from '../../kit/messaging.js';

// Messaging's store changes live in emulator/messaging/conversation-service.ts, one journal line per
// logical change: a user's message and its conversation's new updatedAt were two separate writes
// (Promise.all), so a crash between them could keep one without the other.

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  dir = await tempDir('plugsmith-conv-');
  emu = await emulator({ dataDir: dir, seed: messagingSeed() });
});

/** Every journal line of the data dir, parsed. */
async function journalLines(): Promise<
  Array<{
    t: string;
    c?: string;
    r?: { id: string };
    m?: Array<{ t: string; c: string; r: { id: string } }>;
  }>
> {
  const lines: string[] = [];
  for (const file of await readdir(dir)) {
    if (!/journal/i.test(file)) continue;
    lines.push(
      ...(await readFile(join(dir, file), 'utf8')).split('\n').filter((l) => l.trim() !== ''),
    );
  }
  return lines.map((l) => JSON.parse(l));
}

test("a user's message and its conversation's touch are one journal line", async () => {
  const created = await call(emu.messagingUrl, 'POST', '/conversations', {
    bearer: KEY_A,
    body: { characterId: 'char_fast' },
  });
  expect(created.status).toBe(201);
  const conversationId = created.body.data.id;
  const sent = await call(emu.messagingUrl, 'POST', `/conversations/${conversationId}/messages`, {
    bearer: KEY_A,
    body: { type: 'TEXT', content: 'hello' },
  });
  expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
  const messageId = sent.body.data.id;

  const lines = await journalLines();
  expect(lines.length).toBeGreaterThan(0);
  const holding = lines.filter(
    (l) =>
      JSON.stringify(l).includes(messageId) &&
      (l.t === 'all' ? l.m!.some((c) => c.r?.id === messageId) : l.r?.id === messageId),
  );
  // The first line that stores the user's message also moves the conversation.
  const first = holding[0];
  expect(first.t).toBe('all');
  expect(first.m!.map((c) => `${c.t}:${c.c}:${c.r.id}`).sort()).toEqual([
    `put:conversations:${conversationId}`,
    `put:messages:${messageId}`,
  ]);
});
