import { call, emulator } from '../../kit/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { EventClient, KEY_A, KEY_B, messagingSeed, newConversation } from '../../kit/messaging.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// The admin listings the dashboard's Data page needs beyond the platform's API: tokens as metadata,
// every org's conversations and their messages, each on the shared query system.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ seed: messagingSeed() });
});

const admin = (method: string, path: string, body?: unknown) =>
  call(emu.url, method, `/_emulator${path}`, { body, headers: emu.adminHeaders });

describe('admin API: tokens (metadata only)', () => {
  it('lists user tokens without the secret or its hash, with sort, filter and search', async () => {
    const res = await admin('GET', '/tokens?@sortBy=userId&@sortOrder=desc');
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { userId: string }) => t.userId)).toEqual(['u_b', 'u_a']);
    for (const token of res.body.data) {
      expect(Object.keys(token).sort()).toEqual([
        'createdAt',
        'hint',
        'id',
        'instanceId',
        'kind',
        'name',
        'orgId',
        'revokedAt',
        'updatedAt',
        'userId',
      ]);
      expect(token.kind).toBe('user');
    }
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('pst_test_user_a');
    for (const stored of emulatorInternals(emu).db.tokens.values())
      expect(text).not.toContain(stored.hash);
    expect(res.body.data.find((t: { userId: string }) => t.userId === 'u_a').hint).toBe('er_a');

    const filtered = await admin('GET', '/tokens?userId=u_a');
    expect(filtered.body.data).toHaveLength(1);
    expect(filtered.body.meta.pagination).toMatchObject({ type: 'index', total: 1 });
    expect(
      (await admin('GET', '/tokens?@search=ER_B')).body.data.map(
        (t: { userId: string }) => t.userId,
      ),
    ).toEqual(['u_b']);
  });

  it('refuses a bad query with 400 and details, and answers only with the admin credential', async () => {
    const bad = await admin('GET', '/tokens?@sortBy=hash');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('Invalid query parameters');
    expect(bad.body.error.details.length).toBeGreaterThan(0);
    expect((await call(emu.url, 'GET', '/_emulator/tokens')).status).toBe(401);
  });
});

describe('admin API: conversations and messages', () => {
  it("lists every org's conversations with their org, filtered and paged by cursor", async () => {
    const a = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const b = await newConversation(emu.messagingUrl, KEY_B, 'char_b');
    const all = await admin('GET', '/conversations?@sortBy=createdAt&@sortOrder=asc');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((c: { id: string }) => c.id);
    expect(ids).toEqual(expect.arrayContaining([a, b]));
    expect(all.body.data.find((c: { id: string }) => c.id === b)).toMatchObject({
      characterId: 'char_b',
      orgId: 'org_b',
    });

    const orgA = await admin('GET', '/conversations?orgId=org_a');
    expect(orgA.body.data.every((c: { orgId: string }) => c.orgId === 'org_a')).toBe(true);
    const first = await admin('GET', '/conversations?@cursor=&@limit=1');
    expect(first.body.meta.pagination).toMatchObject({ type: 'cursor', limit: 1, hasNext: true });
    const next = await admin(
      'GET',
      `/conversations?@cursor=${first.body.meta.pagination.nextCursor}&@limit=1`,
    );
    expect(next.body.data[0].id).not.toBe(first.body.data[0].id);

    expect((await admin('GET', `/conversations/${b}`)).body.data).toMatchObject({
      id: b,
      orgId: 'org_b',
    });
    const missing = await admin('GET', '/conversations/conv_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.error).toBe('NOT_FOUND');
  });

  it("lists a conversation's messages with filters and search, a streaming reply with its content so far", async () => {
    const id = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
    const events = await EventClient.open(emu.messagingUrl, id, KEY_A);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: KEY_A,
      body: { content: 'hello' },
    });
    await events.reply();
    const list = await admin('GET', `/conversations/${id}/messages`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { sender: string }) => m.sender)).toEqual(['USER', 'CHARACTER']);
    expect(list.body.data[1]).toMatchObject({
      content: 'Hi there, Fast here!',
      isStreaming: false,
    });
    expect(
      (await admin('GET', `/conversations/${id}/messages?sender=CHARACTER`)).body.data,
    ).toHaveLength(1);
    expect(
      (await admin('GET', `/conversations/${id}/messages?@search=HI THERE`)).body.data.map(
        (m: { sender: string }) => m.sender,
      ),
    ).toEqual(['CHARACTER']);
    expect(
      (
        await admin(
          'GET',
          `/conversations/${id}/messages?@sortBy=createdAt&@sortOrder=desc&@limit=1`,
        )
      ).body.data[0].sender,
    ).toBe('CHARACTER');
    expect((await admin('GET', `/conversations/${id}/messages?isStreaming=maybe`)).status).toBe(
      400,
    );
    expect((await admin('GET', '/conversations/conv_nope/messages')).status).toBe(404);
  });
});
