import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { adminCall, call } from '../kit/http.js';
import { emulator } from '../kit/index.js';

// AUDIT: GET /_emulator/conversations/:id/messages forces oldest-first whenever @sortBy is absent
// (emulator/admin/conversations.ts: `if (request.query['@sortBy'] === undefined)
// query.sortOrder = ['asc']`), so an explicit `@sortOrder=desc` is silently overwritten: the caller
// asked for newest first and gets oldest first, with no error. Fix: default to asc only when
// neither @sortBy nor @sortOrder is given.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

describe('admin messages of a conversation (audit)', () => {
  it('honour @sortOrder=desc without @sortBy', async () => {
    const key = `Bearer ${emu.apiKey}`;
    const conversation = await call(emu.messagingUrl, 'POST', '/conversations', {
      token: key,
      body: { characterId: 'char_nova' },
    });
    expect(conversation.status, JSON.stringify(conversation.body)).toBe(201);
    const id = conversation.body.data.id;
    for (const content of ['first', 'second']) {
      const sent = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
        token: key,
        body: { content },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    }
    // The character answers each message on its own time: list only once its replies have all been
    // written, or a reply created between the two listings makes them disagree.
    const settled = async () => {
      for (let previous = -1; ; ) {
        const all = await adminCall(emu, 'GET', `/_emulator/conversations/${id}/messages`, {
          query: { '@sortBy': 'createdAt', '@sortOrder': 'asc' },
        });
        const messages: Array<{ isStreaming: boolean }> = all.body.data;
        if (messages.length === previous && messages.every((m) => !m.isStreaming)) return all;
        previous = messages.length;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const asc = await settled();
    const desc = await adminCall(emu, 'GET', `/_emulator/conversations/${id}/messages`, {
      query: { '@sortOrder': 'desc' },
    });
    expect(desc.status).toBe(200);
    const times = (r: typeof asc): string[] =>
      r.body.data.map((m: { createdAt: string }) => m.createdAt);
    expect(times(asc)[0] < times(asc).at(-1)!, 'the messages span more than one instant').toBe(
      true,
    );
    // Newest first: the first answer is the latest message, the last the earliest.
    expect([times(desc)[0], times(desc).at(-1)]).toEqual([times(asc).at(-1), times(asc)[0]]);
  });
});
