import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { emulatorInternals } from '../../../emulator/internals.js';
import { emulator } from '../../kit/index.js';

// GET /_emulator/stream: the store announces each replacement (reset, import) with a new epoch, once the new records are in.

let emu: Emulator;

beforeAll(async () => {
  emu = await emulator();
});

/** Opens the stream and returns a reader of its next frames (event name and parsed data). */
async function openStream() {
  const controller = new AbortController();
  const res = await request(`${emu.url}/_emulator/stream`, {
    headers: emu.adminHeaders,
    signal: controller.signal,
  });
  expect(res.statusCode).toBe(200);
  const decoder = new TextDecoder();
  const iterator = res.body[Symbol.asyncIterator]();
  let buffered = '';
  async function next(): Promise<{ event: string; data: { epoch: string; reason?: string } }> {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end !== -1) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (frame.startsWith(':')) continue;
        const event = /^event: (.*)$/m.exec(frame)![1];
        const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]);
        return { event, data };
      }
      const chunk = await iterator.next();
      if (chunk.done) throw new Error('the stream ended');
      buffered += decoder.decode(chunk.value as Buffer, { stream: true });
    }
  }
  return { next, close: () => controller.abort() };
}

async function admin(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${emu.url}${path}`, {
    method,
    headers: {
      ...emu.adminHeaders,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.body.json()) as { data: unknown };
  expect(res.statusCode).toBe(200);
  return answer.data;
}

describe('the store-replaced stream', () => {
  it('tells a reset and an import, each with a new epoch, after the seed or the import is in', async () => {
    const stream = await openStream();
    try {
      const hello = await stream.next();
      expect(hello.event).toBe('hello');
      const exported = await admin('GET', '/_emulator/export');
      // What a listener sees when told: the users at that moment (a reset announced before seeding would show none).
      const usersWhenTold: number[] = [];
      const unsubscribe = emulatorInternals(emu).store.replacements.subscribe(() =>
        usersWhenTold.push(emulatorInternals(emu).db.users.size),
      );

      await admin('POST', '/_emulator/reset');
      const reset = await stream.next();
      expect(reset.event).toBe('store-replaced');
      expect(reset.data.reason).toBe('reset');
      expect(reset.data.epoch).not.toBe(hello.data.epoch);

      await admin('POST', '/_emulator/import', exported);
      const imported = await stream.next();
      expect(imported.event).toBe('store-replaced');
      expect(imported.data.reason).toBe('import');
      expect(new Set([hello.data.epoch, reset.data.epoch, imported.data.epoch]).size).toBe(3);
      unsubscribe();
      expect(usersWhenTold).toHaveLength(2);
      expect(usersWhenTold.every((count) => count > 0)).toBe(true);
    } finally {
      stream.close();
    }
  });
});
