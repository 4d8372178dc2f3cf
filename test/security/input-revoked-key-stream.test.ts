import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { emulator } from '../kit/index.js';

// Revoking an API key ends what it holds open: its conversation streams close at once.
let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

function adminHeaders(): Record<string, string> {
  const token = (emu as unknown as { adminToken?: string }).adminToken;
  return { 'content-type': 'application/json', ...(token ? { 'x-plugsmith-admin': token } : {}) };
}

async function json(res: Awaited<ReturnType<typeof request>>) {
  return (await res.body.json()) as any;
}

describe('revoking an API key', () => {
  it('closes the conversation streams opened with it, and only those', async () => {
    const issue = async () =>
      json(
        await request(`${emu.url}/_emulator/api-keys`, {
          method: 'POST',
          headers: adminHeaders(),
          body: JSON.stringify({ orgId: 'org_dev' }),
        }),
      );
    const revoked = (await issue()).data;
    const kept = (await issue()).data;
    const conversation = await json(
      await request(`${emu.messagingUrl}/conversations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${revoked.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ characterId: 'char_nova' }),
      }),
    );
    const open = async (key: string) => {
      const res = await request(
        `${emu.messagingUrl}/conversations/${conversation.data.id}/events`,
        { headers: { authorization: `Bearer ${key}` } },
      );
      expect(res.statusCode).toBe(200);
      const ended = new Promise<string>((resolve, reject) => {
        let text = '';
        res.body.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.body.on('end', () => resolve(text));
        res.body.on('error', reject);
      });
      return { res, ended };
    };
    const victim = await open(revoked.key);
    const survivor = await open(kept.key);
    let survivorEnded = false;
    void survivor.ended.then(
      () => (survivorEnded = true),
      () => (survivorEnded = true),
    );

    const deleted = await request(`${emu.url}/_emulator/api-keys/${revoked.id}`, {
      method: 'DELETE',
      headers: adminHeaders(),
    });
    expect(deleted.statusCode).toBe(200);
    await deleted.body.dump();
    // Ends without any timeout of ours: the test would hang (and time out) if the stream stayed open.
    expect(await victim.ended).toContain(': connected');
    // The other key's stream still delivers: a message sent with it reaches its stream.
    const sent = await request(
      `${emu.messagingUrl}/conversations/${conversation.data.id}/messages`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${kept.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'hello' }),
      },
    );
    expect(sent.statusCode).toBe(201);
    await sent.body.dump();
    expect(survivorEnded).toBe(false);
    survivor.res.body.destroy();
    // And the revoked key opens nothing new.
    const again = await request(
      `${emu.messagingUrl}/conversations/${conversation.data.id}/events`,
      { headers: { authorization: `Bearer ${revoked.key}` } },
    );
    expect(again.statusCode).toBe(401);
    await again.body.dump();
  });
});
