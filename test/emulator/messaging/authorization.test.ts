import { call, emulator } from '../../kit/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { KEY_A, KEY_B, messagingSeed, newConversation } from '../../kit/messaging.js';

let emu: Emulator;
let conversationA: string;
beforeAll(async () => {
  emu = await emulator({ seed: messagingSeed() });
  conversationA = await newConversation(emu.messagingUrl, KEY_A, 'char_fast');
});

/** Every messaging route, with a body that would be valid. */
const routes = () =>
  [
    { method: 'POST', path: '/conversations', body: { characterId: 'char_fast' } },
    { method: 'GET', path: `/conversations/${conversationA}` },
    {
      method: 'POST',
      path: `/conversations/${conversationA}/messages`,
      body: { content: 'hello' },
    },
    { method: 'GET', path: `/conversations/${conversationA}/messages` },
    { method: 'GET', path: `/conversations/${conversationA}/events` },
  ] as const;

describe('messaging authorization', () => {
  const badHeaders: Array<[string, string | undefined]> = [
    ['no header', undefined],
    ['an empty header', ''],
    ['an unknown key', 'Bearer psk_not_a_key_at_all'],
    ['the key without Bearer', KEY_A],
    ['another scheme', `Basic ${KEY_A}`],
    ['a user token', 'Bearer pst_test_user_a'],
    ['Bearer and nothing', 'Bearer '],
  ];
  for (const [label, auth] of badHeaders) {
    it(`answers 401 to ${label} on every route`, async () => {
      for (const route of routes()) {
        const res = await call(emu.messagingUrl, route.method, route.path, {
          token: auth ?? undefined,
          bearer: null,
          body: 'body' in route ? route.body : undefined,
        });
        expect(res.status, `${route.method} ${route.path}`).toBe(401);
        expect(res.body).toMatchObject({
          ok: false,
          error: { error: 'UNAUTHORIZED', message: expect.stringMatching(/Bearer|API key/) },
        });
      }
    });
  }

  it('answers 401 before looking at a bad body', async () => {
    const res = await call(emu.messagingUrl, 'POST', `/conversations/${conversationA}/messages`, {
      bearer: null,
      body: { nonsense: true },
    });
    expect(res.status).toBe(401);
  });

  it("hides another org's conversations and characters from a valid key", async () => {
    for (const route of routes()) {
      const res = await call(emu.messagingUrl, route.method, route.path, {
        bearer: KEY_B,
        body: 'body' in route ? route.body : undefined,
      });
      if (route.path === '/conversations') {
        // Creating with another org's character: that character does not exist for this key.
        expect(res.status).toBe(400);
        expect(res.body.error.details[0].path).toEqual(['characterId']);
      } else {
        expect(res.status, `${route.method} ${route.path}`).toBe(404);
        expect(res.body.error.error).toBe('NOT_FOUND');
      }
    }
    // Nothing was written into org A's conversation.
    const listed = await call(emu.messagingUrl, 'GET', `/conversations/${conversationA}/messages`, {
      bearer: KEY_A,
    });
    expect(listed.body.data).toEqual([]);
  });

  it('accepts the right key on every route, with any case of "Bearer"', async () => {
    for (const route of routes()) {
      if (route.path.endsWith('/events')) continue; // a stream; covered by events.test.ts
      const res = await call(emu.messagingUrl, route.method, route.path, {
        token: `bearer ${KEY_A}`,
        body: 'body' in route ? route.body : undefined,
      });
      expect(res.status, `${route.method} ${route.path}`).toBeLessThan(300);
    }
  });

  it('stops accepting a key once it is revoked through the admin API', async () => {
    const issued = await call(emu.url, 'POST', '/_emulator/api-keys', {
      headers: emu.adminHeaders,
      body: { orgId: 'org_a', name: 'short-lived' },
    });
    expect(issued.status).toBe(201);
    const key = issued.body.data.key as string;
    expect(
      (await call(emu.messagingUrl, 'GET', `/conversations/${conversationA}`, { bearer: key }))
        .status,
    ).toBe(200);
    expect(
      (
        await call(emu.url, 'DELETE', `/_emulator/api-keys/${issued.body.data.id}`, {
          headers: emu.adminHeaders,
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(emu.messagingUrl, 'GET', `/conversations/${conversationA}`, { bearer: key }))
        .status,
    ).toBe(401);
  });
});
