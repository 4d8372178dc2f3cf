import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { MAX_JSON_DEPTH } from '../../emulator/json-body.js';
import { emulator } from '../kit/index.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

async function send(
  method: 'POST' | 'DELETE' | 'PUT',
  path: string,
  body: string | undefined,
  base = () => emu.url,
) {
  const res = await request(`${base()}${path}`, {
    method,
    headers: { authorization: emu.token!, 'content-type': 'application/json' },
    body,
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

describe('JSON request bodies', () => {
  it('an empty body with a JSON content-type is no body: a DELETE goes on, a POST that needs one is told so', async () => {
    expect((await send('DELETE', '/api/plugins/plg_missing', undefined)).status).toBe(404);
    expect((await send('DELETE', '/api/plugins/plg_missing', '  \n')).status).toBe(404);
    const post = await send('POST', '/api/orgs/org_dev/repositories', undefined);
    expect(post.status).toBe(400);
    expect(post.body.error).toMatchObject({
      error: 'VALIDATION_ERROR',
      message: 'Invalid request body: a JSON object body is required',
    });
  });

  it('a syntax error says what is wrong, with details', async () => {
    const res = await send('POST', '/api/orgs/org_dev/repositories', '{"name":');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^Body is not valid JSON: .+/);
    expect(res.body.error.details).toMatchObject([{ code: 'invalid_json', path: [] }]);
  });

  it('__proto__ and constructor.prototype keys are refused by path, on both APIs; nothing is created', async () => {
    const before = (await request(`${emu.url}/api/orgs/org_dev/repositories`, {
      headers: { authorization: emu.token! },
    }).then((r) => r.body.json())) as { data: unknown[] };
    const cases: Array<[string, string[]]> = [
      ['{"name":"r","__proto__":{"isAdmin":true}}', ['__proto__']],
      [
        '{"name":"r","description":"d","extra":[{"constructor":{"prototype":{"x":1}}}]}',
        ['extra', '0', 'constructor', 'prototype'],
      ],
    ];
    for (const [body, path] of cases) {
      const res = await send('POST', '/api/orgs/org_dev/repositories', body);
      expect(res.status, body).toBe(400);
      expect(res.body.error.details).toMatchObject([{ code: 'forbidden_key', path }]);
    }
    const messaging = await request(`${emu.messagingUrl}/conversations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
      body: '{"characterId":"char_nova","__proto__":{}}',
    });
    expect(messaging.statusCode).toBe(400);
    expect(((await messaging.body.json()) as any).error.details[0].path).toEqual(['__proto__']);
    // A key that merely contains the words is an ordinary key.
    expect(
      (
        await send(
          'POST',
          '/api/orgs/org_dev/repositories',
          '{"name":"constructor notes","description":"about __proto__"}',
        )
      ).status,
    ).toBe(201);
    const after = (await request(`${emu.url}/api/orgs/org_dev/repositories`, {
      headers: { authorization: emu.token! },
    }).then((r) => r.body.json())) as { data: unknown[] };
    expect(after.data.length).toBe(before.data.length + 1);
  });

  it('a deeply nested body is an ordinary 400, not a crash', async () => {
    const depth = 100_000;
    const res = await send(
      'POST',
      '/api/orgs/org_dev/repositories',
      `{"name":"deep","extra":${'['.repeat(depth)}"constructor"${']'.repeat(depth)}}`,
    );
    expect(res.status).toBe(400);
    const poisoned = await send(
      'POST',
      '/api/orgs/org_dev/repositories',
      `{"name":"deep","extra":${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}}`,
    );
    expect(poisoned.status).toBe(400);
    // Too deep is found before the key: the path names where the nesting passes the limit.
    expect(poisoned.body.error.details[0]).toMatchObject({ code: 'too_deep' });
    expect(poisoned.body.error.details[0].path).toHaveLength(MAX_JSON_DEPTH);
    expect(poisoned.body.error.message.length).toBeLessThan(400);
    expect((await request(`${emu.url}/_emulator/health`)).statusCode).toBe(200);
  });
});
