import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { parseJsonBody } from '../../emulator/json-body.js';
import { call } from '../kit/http.js';
import { emulator } from '../kit/index.js';

// Issue 24, item 5: the forbidden-key check (`__proto__`, `constructor.prototype`) only ran when the
// raw text spelled the key, so `"\u005f_proto__"` and `"\u0063onstructor": { "prototype": … }` were
// stored (201), and the owner's next export could not be imported. Keys are now checked as parsed.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

const post = (rawBody: string) =>
  call(emu.url, 'POST', '/api/orgs/org_dev/plugins', {
    token: emu.token!,
    rawBody,
    headers: { 'content-type': 'application/json' },
  });

describe('keys spelled with escapes', () => {
  it('"\\u005f_proto__" is refused with a 400 naming the path', async () => {
    const res = await post(
      '{"name":"p","type":"APP","inputsSchema":{"type":"object","properties":{"\\u005f_proto__":{"type":"string"}}}}',
    );
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      code: 'forbidden_key',
      path: ['inputsSchema', 'properties', '__proto__'],
    });
  });

  it('"\\u0063onstructor": { "prototype": … } is refused with a 400 naming the path', async () => {
    const res = await post(
      '{"name":"p","type":"APP","inputsSchema":{"type":"object","properties":{"\\u0063onstructor":{"prototype":{"type":"string"}}}}}',
    );
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({
      code: 'forbidden_key',
      path: ['inputsSchema', 'properties', 'constructor', 'prototype'],
    });
    expect(() => parseJsonBody('{"a":{"\\u0063onstructor":{"\\u0070rototype":1}}}')).toThrow(
      /a\.constructor\.prototype/,
    );
  });

  it('after both attempts, the export imports again (round trip)', async () => {
    await post('{"name":"p","type":"APP","\\u005f_proto__":{"x":1}}');
    await post(
      '{"name":"p","type":"APP","tags":["a"],"inputsSchema":{"\\u0063onstructor":{"prototype":{}}}}',
    );
    const exported = await call(emu.url, 'GET', '/_emulator/export', { headers: emu.adminHeaders });
    expect(exported.status).toBe(200);
    const data = exported.body.data ?? exported.body;
    const imported = await call(emu.url, 'POST', '/_emulator/import', {
      headers: emu.adminHeaders,
      body: data,
    });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 500)).toBe(200);
  });
});
