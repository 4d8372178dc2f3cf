import { call, emulator } from '../../kit/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import {
  EventClient,
  expectPacketInvariants,
  messagingSeed,
  newConversation,
} from '../../kit/messaging.js';
import { emulatorInternals } from '../../../emulator/internals.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ seed: messagingSeed() });
});

const admin = (method: string, path: string, body?: unknown) =>
  call(emu.url, method, `/_emulator${path}`, { body, headers: emu.adminHeaders });

describe('admin API: characters', () => {
  it('lists characters of an org for a picker, with the shared query system', async () => {
    const res = await admin('GET', '/characters?orgId=org_a&@sortBy=name&@sortOrder=asc');
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(['char_fast', 'char_slow']);
    expect(res.body.meta.pagination).toMatchObject({ type: 'index', total: 2 });
    const bad = await admin('GET', '/characters?@limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('Invalid query parameters');
  });

  it('creates a character that replies at once through the messaging API', async () => {
    const created = await admin('POST', '/characters', {
      id: 'char_echo',
      orgId: 'org_a',
      agentId: 'agent_a',
      name: 'Echo',
      script: [{ match: '^ping$', reply: 'pong' }],
      packetSize: 1,
      packetIntervalMs: 0,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      id: 'char_echo',
      orgId: 'org_a',
      agentId: 'agent_a',
      name: 'Echo',
      engine: 'scripted',
      createdAt: expect.any(String),
    });
    expect((await admin('GET', '/characters/char_echo')).body.data).toEqual(created.body.data);

    const key = (await admin('POST', '/api-keys', { orgId: 'org_a' })).body.data.key as string;
    const id = await newConversation(emu.messagingUrl, key, 'char_echo');
    const events = await EventClient.open(emu.messagingUrl, id, key);
    await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: key,
      body: { content: 'PING' },
    });
    const packets = await events.reply();
    expect(expectPacketInvariants(packets).content).toBe('pong');
    expect(packets.map((p) => p.contentDelta)).toEqual(['p', 'o', 'n', 'g', '']);
  });

  it('changes a character, and null removes a field', async () => {
    await admin('POST', '/characters', {
      id: 'char_edit',
      orgId: 'org_a',
      agentId: 'agent_a',
      name: 'Edit',
      persona: 'Kind.',
      fallbackReply: 'Old.',
    });
    const patched = await admin('PATCH', '/characters/char_edit', {
      name: 'Edited',
      fallbackReply: 'New.',
      persona: null,
      agentId: null,
      engine: 'openai',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: 'Edited',
      fallbackReply: 'New.',
      agentId: null,
      engine: 'openai',
    });
    expect(patched.body.data).not.toHaveProperty('persona');
    expect(patched.body.data.updatedAt >= patched.body.data.createdAt).toBe(true);
    expect(emulatorInternals(emu).db.characters.get('char_edit')).toEqual(patched.body.data);
  });

  it('refuses bad character input with 4xx and details', async () => {
    const cases: Array<[string, string, unknown, number]> = [
      ['POST', '/characters', { orgId: 'org_a' }, 400],
      ['POST', '/characters', { orgId: 'org_nope', name: 'X' }, 400],
      ['POST', '/characters', { orgId: 'org_a', name: 'X', agentId: 'agent_nope' }, 400],
      ['POST', '/characters', { orgId: 'org_a', name: 'X', agentId: 'agent_b' }, 400],
      ['POST', '/characters', { orgId: 'org_a', name: 'X', engine: 'gpt' }, 400],
      [
        'POST',
        '/characters',
        { orgId: 'org_a', name: 'X', script: [{ match: '(', reply: 'x' }] },
        400,
      ],
      ['POST', '/characters', { orgId: 'org_a', name: 'X', packetSize: 0 }, 400],
      ['POST', '/characters', { orgId: 'org_a', name: 'X', id: 'has space' }, 400],
      ['POST', '/characters', { orgId: 'org_a', name: 'X', colour: 'red' }, 400],
      ['PATCH', '/characters/char_fast', {}, 400],
      ['PATCH', '/characters/char_fast', { orgId: 'org_b' }, 400],
      ['PATCH', '/characters/char_fast', { agentId: 'agent_b' }, 400],
      ['PATCH', '/characters/char_fast', { script: [{ match: '[', reply: 'x' }] }, 400],
    ];
    for (const [method, path, body, status] of cases) {
      const res = await admin(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(res.body.error.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(
      (await admin('POST', '/characters', { id: 'char_fast', orgId: 'org_a', name: 'Dup' })).status,
    ).toBe(409);
    expect((await admin('PATCH', '/characters/char_nope', { name: 'X' })).status).toBe(404);
    expect((await admin('GET', '/characters/char_nope')).status).toBe(404);
  });
});

describe('admin API: agents and API keys', () => {
  it('creates, lists, reads and renames agents', async () => {
    const created = await admin('POST', '/agents', { orgId: 'org_b', name: 'Second' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(
      (await admin('GET', '/agents?orgId=org_b')).body.data.map((a: { id: string }) => a.id).sort(),
    ).toEqual(['agent_b', id].sort());
    expect((await admin('PATCH', `/agents/${id}`, { name: 'Renamed' })).body.data.name).toBe(
      'Renamed',
    );
    expect((await admin('GET', `/agents/${id}`)).body.data.name).toBe('Renamed');
    expect(
      (await admin('POST', '/agents', { id: 'agent_a', orgId: 'org_a', name: 'Dup' })).status,
    ).toBe(409);
    expect((await admin('POST', '/agents', { orgId: 'org_nope', name: 'X' })).status).toBe(400);
    expect((await admin('POST', '/agents', { orgId: 'org_a' })).status).toBe(400);
    expect((await admin('PATCH', '/agents/agent_nope', { name: 'X' })).status).toBe(404);
    expect((await admin('PATCH', '/agents/agent_a', { name: '' })).status).toBe(400);
  });

  it('issues API keys once and lists them without secrets', async () => {
    const issued = await admin('POST', '/api-keys', { orgId: 'org_b', name: 'ci' });
    expect(issued.status).toBe(201);
    expect(issued.body.data).toMatchObject({
      orgId: 'org_b',
      name: 'ci',
      key: expect.stringMatching(/^psk_/),
    });
    const listed = await admin('GET', '/api-keys?orgId=org_b');
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(issued.body.data.key);
    expect(text).not.toContain('hash');
    expect(listed.body.data.find((k: { id: string }) => k.id === issued.body.data.id)).toEqual({
      id: issued.body.data.id,
      orgId: 'org_b',
      name: 'ci',
      hint: issued.body.data.key.slice(-4),
      createdAt: issued.body.data.createdAt,
      updatedAt: issued.body.data.updatedAt,
    });
    expect((await admin('POST', '/api-keys', { orgId: 'org_nope' })).status).toBe(400);
    expect((await admin('POST', '/api-keys', {})).status).toBe(400);
    expect((await admin('DELETE', '/api-keys/key_nope')).status).toBe(404);
  });
});
