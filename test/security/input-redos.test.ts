import { call, emulator, until } from '../kit/index.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { validateSeed } from '../../emulator/seed.js';
import { ROLES_SEED, TOKENS } from '../kit/roles-seed.js';
import { verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';

// User-supplied regular expressions run on RE2 (linear time): `^(a+)+$` against thirty `a` and a
// `!` took a backtracking engine over 30 s, during which nothing else (health included) answered.
// No wall-clock assertions: each test checks that other requests are answered while the
// dangerous input is handled (a backtracking engine would block them until the test times out),
// and that syntax only a backtracking engine can run is refused where it is supplied.
const EVIL = '^(a+)+$';
const ATTACK = `${'a'.repeat(30)}!`;

let emu: Emulator;
let hook: WebhookServer;
beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeScale: 0.01 } });
  hook = await WebhookServer.start();
});
afterAll(async () => {
  await hook.close();
});

function adminHeaders(): Record<string, string> {
  const token = (emu as unknown as { adminToken?: string }).adminToken;
  return token ? { 'x-plugsmith-admin': token } : {};
}

async function health(): Promise<number> {
  const res = await request(`${emu.url}/_emulator/health`);
  await res.body.dump();
  return res.statusCode;
}

describe('schema patterns', () => {
  it('an install whose input meets a catastrophic inputsSchema pattern is answered (400), and health answers meanwhile', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
      events: ['PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputsSchema: {
        type: 'object',
        properties: { folder: { type: 'string', pattern: EVIL } },
        patternProperties: { [EVIL]: { type: 'string' } },
      },
    });
    const body = {
      name: 'evil',
      pluginId: plugin.id,
      events: ['PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputs: { folder: ATTACK, [ATTACK]: 1 },
    };
    const install = call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
      bearer: TOKENS.member,
      body: body,
    });
    const [installed, ...healths] = await Promise.all([install, health(), health(), health()]);
    expect(healths).toEqual([200, 200, 200]);
    expect(installed.status).toBe(400);
    expect(installed.body.error.details.map((d: { path: string[] }) => d.path.join('.'))).toContain(
      'inputs.folder',
    );
    // The pattern still works as a pattern.
    const good = await call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
      bearer: TOKENS.member,
      body: { ...body, name: 'ok', inputs: { folder: 'aaaa' } },
    });
    expect(good.status).toBe(201);
  });

  it('a pattern only a backtracking engine can run (lookaround, backreference) is refused with a 400 where it is supplied', async () => {
    for (const [field, schema] of [
      [
        'inputsSchema',
        { type: 'object', properties: { a: { type: 'string', pattern: '^(?=a)a+$' } } },
      ],
      ['inputsSchema', { type: 'object', patternProperties: { '(a)\\1': { type: 'string' } } }],
    ] as const) {
      const res = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
        bearer: TOKENS.member,
        body: {
          name: 'p',
          type: 'DATA_PROVIDER',
          [field]: schema,
        },
      });
      expect(res.status, JSON.stringify(schema)).toBe(400);
      expect(res.body.error.details[0].path[0]).toBe(field);
      expect(res.body.error.details[0].message).toMatch(/RE2/);
    }
    const plugin = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'defs',
        type: 'DATA_PROVIDER',
      },
    });
    for (const [segment, field] of [
      ['actions', 'argsSchema'],
      ['actions', 'returnSchema'],
      ['external-events', 'payloadSchema'],
    ] as const) {
      const res = await call(emu.url, 'POST', `/api/plugins/${plugin.body.data.id}/${segment}`, {
        bearer: TOKENS.member,
        body: { name: `d_${field}`, title: 'T', [field]: { type: 'string', pattern: '(?<!x)y' } },
      });
      expect(res.status, field).toBe(400);
    }
  });
});

describe('bounded matching', () => {
  it('a pattern too large to match quickly is refused where it is supplied', async () => {
    const res = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'huge',
        type: 'DATA_PROVIDER',
        inputsSchema: {
          type: 'object',
          properties: { a: { type: 'string', pattern: '[\\s\\S]{1000}[\\s\\S]{1000}' } },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].message).toMatch(/too large/);
  });

  it('matches that together would cost too much are a 400 naming the value, and health answers meanwhile', async () => {
    const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
      type: 'DATA_PROVIDER',
      webhookUrl: hook.url,
      events: ['PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputsSchema: {
        type: 'object',
        additionalProperties: { type: 'string', pattern: '[\\s\\S]{900}' },
      },
    });
    // Each value alone is within the budget; a thousand of them are not.
    const inputs = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'ab'.repeat(500)]),
    );
    const body = {
      name: 'costly',
      pluginId: plugin.id,
      events: ['PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputs,
    };
    const [installed, ...healths] = await Promise.all([
      call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
        bearer: TOKENS.member,
        body: body,
      }),
      health(),
      health(),
    ]);
    expect(healths).toEqual([200, 200]);
    expect(installed.status).toBe(400);
    expect(installed.body.error.details).toMatchObject([
      { code: 'pattern_budget', path: ['inputs'] },
    ]);
  });
});

describe("characters' script match", () => {
  it('a character matching with a catastrophic pattern replies (the fallback) and health answers meanwhile', async () => {
    const created = await request(`${emu.url}/_emulator/characters`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders() },
      body: JSON.stringify({
        orgId: 'org_acme',
        name: 'Evil',
        script: [{ match: EVIL, reply: 'matched' }],
        fallbackReply: 'no match',
        packetIntervalMs: 0,
      }),
    });
    expect(created.statusCode).toBe(201);
    const character = ((await created.body.json()) as any).data;
    const keyRes = await request(`${emu.url}/_emulator/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders() },
      body: JSON.stringify({ orgId: 'org_acme' }),
    });
    const apiKey = ((await keyRes.body.json()) as any).data.key;
    const messaging = (method: 'POST' | 'GET', path: string, body?: unknown) =>
      call(emu.messagingUrl, method, path, { bearer: apiKey, body: body });
    const conversation = (await messaging('POST', '/conversations', { characterId: character.id }))
      .body.data;
    const sent = messaging('POST', `/conversations/${conversation.id}/messages`, {
      content: ATTACK,
    });
    const [message, ...healths] = await Promise.all([sent, health(), health()]);
    expect(healths).toEqual([200, 200]);
    expect(message.status).toBe(201);
    type Reply = { sender: string; content: string; isStreaming: boolean };
    let latest: Reply | undefined;
    const reply = await until(
      "the character's reply to the attack to end",
      async () => {
        const listed = await messaging('GET', `/conversations/${conversation.id}/messages`);
        latest = (listed.body.data as Reply[]).find((m) => m.sender === 'CHARACTER');
        return latest?.isStreaming === false ? latest : undefined;
      },
      {
        intervalMs: 20,
        explain: () => `the reply so far: ${latest ? JSON.stringify(latest) : 'none'}`,
      },
    );
    expect(reply.content).toBe('no match');
    const matched = await messaging('POST', `/conversations/${conversation.id}/messages`, {
      content: 'AAAA',
    });
    expect(matched.status).toBe(201);
  });

  it('a match only a backtracking engine can run is refused by the admin API and in a seed', async () => {
    const res = await request(`${emu.url}/_emulator/characters`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...adminHeaders() },
      body: JSON.stringify({
        orgId: 'org_acme',
        name: 'Look',
        script: [{ match: '(?=hello)', reply: 'x' }],
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as any).error.details[0].path).toEqual([
      'script',
      '0',
      'match',
    ]);
    expect(() =>
      validateSeed({
        users: [{ id: 'u', name: 'U' }],
        orgs: [{ id: 'o', name: 'O', members: [{ userId: 'u', role: 'OWNER' }] }],
        tokens: [],
        characters: [
          { id: 'c', orgId: 'o', name: 'C', script: [{ match: '(\\w)\\1', reply: 'x' }] },
        ],
      } as never),
    ).toThrow(/characters\[0\]\.script\[0\]\.match/);
  });
});
