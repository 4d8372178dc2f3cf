import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { MAX_JSON_OBJECT_KEYS, MAX_JSON_VALUES, parseJsonBody } from '../../emulator/json-body.js';
import { MAX_ERROR_DETAILS } from '#contract';
import { ROLES_SEED, TOKENS } from '../kit/roles-seed.js';
import { call } from '../kit/http.js';
import { emulator } from '../kit/index.js';

// Issue 24, item 3: a 0.9 MB body with 60,000 unknown keys cost seconds of the event loop (ajv
// reports every problem) and was answered with 7.7 MB holding 60,001 details, from a VIEWER token,
// any messaging API key, and with no credential at all on POST /_emulator/dashboard/session.
// Objects are now capped at MAX_JSON_OBJECT_KEYS keys at the parse step (a 400 naming the path),
// and an error lists at most MAX_ERROR_DETAILS details plus one counting the rest.

const manyKeys = (n: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 1]));
const ATTACK = manyKeys(60_000);

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED });
});

function expectCapped(res: { status: number; body: any }, path: string[], keys: number) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
  expect(res.body.error.message).toContain(`more than ${MAX_JSON_OBJECT_KEYS} keys`);
  expect(res.body.error.details).toHaveLength(1);
  expect(res.body.error.details[0]).toMatchObject({
    code: 'too_many_keys',
    path,
    received: `over ${MAX_JSON_OBJECT_KEYS} keys`,
  });
  expect(keys).toBeGreaterThan(MAX_JSON_OBJECT_KEYS);
}

describe('objects in bodies are capped at the parse step', () => {
  it('a VIEWER token: 60,000 keys in a plugin body are a 400 naming the cap, with one detail', async () => {
    const res = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      token: `Bearer ${TOKENS.viewer}`,
      body: { name: 'x', type: 'APP', ...ATTACK },
    });
    expectCapped(res, [], 60_002);
  });

  it('a messaging API key: 60,000 keys in a conversation body are a 400', async () => {
    const res = await call(emu.messagingUrl, 'POST', '/conversations', {
      token: 'Bearer key_acme_messaging',
      body: ATTACK,
    });
    expectCapped(res, [], 60_000);
  });

  it('no credential: 60,000 keys on POST /_emulator/dashboard/session are a 413 before a byte is read; 1,500 keys within 16 KiB a 400', async () => {
    // Issue 41: a body from a caller without a credential is at most 16 KiB, refused before it is parsed.
    const res = await call(emu.url, 'POST', '/_emulator/dashboard/session', {
      body: { code: 'abc', ...ATTACK },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toContain('without a credential');
    const short = { code: 'abc', ...manyKeys(1_500, '') };
    expect(JSON.stringify(short).length).toBeLessThan(16 * 1024);
    const capped = await call(emu.url, 'POST', '/_emulator/dashboard/session', { body: short });
    expectCapped(capped, [], 1_501);
  });

  it('a nested object is named by its path; an object at the cap passes the parse step', () => {
    expect(() =>
      parseJsonBody(JSON.stringify({ inputs: { rows: [manyKeys(MAX_JSON_OBJECT_KEYS + 1)] } })),
    ).toThrow(/inputs\.rows\.0/);
    // Counted in the text: quotes, backslashes and brackets inside strings do not confuse the count or the path.
    const tricky = `{"s":"}],{\\"","a\\"b\\\\":${JSON.stringify(manyKeys(MAX_JSON_OBJECT_KEYS + 1, '"k,'))}}`;
    expect(() => parseJsonBody(tricky)).toThrow(
      expect.objectContaining({
        details: [expect.objectContaining({ code: 'too_many_keys', path: ['a"b\\'] })],
      }),
    );
    const atCap = { inputs: manyKeys(MAX_JSON_OBJECT_KEYS) };
    expect(parseJsonBody(JSON.stringify(atCap))).toEqual(atCap);
  });
});

// Issue 24 audit, gap B: the per-object cap left the keys spread over many objects: 141 objects of
// 999 short unknown keys (about 140,000 keys, 984 KB) held the emulator about 850 ms. A body holds
// at most MAX_JSON_VALUES keys and array items in all, counted in the same pass before parsing.
describe('keys and items spread over many objects are capped in all', () => {
  // Short keys ("0" to "rr"), as the audit sent them: 984 KB, under the body limit.
  const spread = Array.from({ length: 141 }, () =>
    Object.fromEntries(
      Array.from({ length: MAX_JSON_OBJECT_KEYS - 1 }, (_, i) => [i.toString(36), 0]),
    ),
  );

  function expectTooManyValues(res: { status: number; body: any }) {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body.error.message).toContain(`more than ${MAX_JSON_VALUES} keys and array items`);
    expect(res.body.error.details).toHaveLength(1);
    expect(res.body.error.details[0]).toMatchObject({
      code: 'too_many_values',
      received: `over ${MAX_JSON_VALUES}`,
    });
  }

  it('a messaging API key: attachments of 141 objects × 999 keys on POST /conversations/:id/messages are a 400', async () => {
    const res = await call(emu.messagingUrl, 'POST', '/conversations/conv_any/messages', {
      token: 'Bearer key_acme_messaging',
      body: { content: 'hi', attachments: spread },
    });
    expectTooManyValues(res);
    expect(res.body.error.details[0].path.slice(0, 1)).toEqual(['attachments']);
  });

  it('a VIEWER token: files of 141 objects × 999 keys on POST /api/generate-upload-url are a 400', async () => {
    const res = await call(emu.url, 'POST', '/api/generate-upload-url', {
      token: `Bearer ${TOKENS.viewer}`,
      body: { files: spread },
    });
    expectTooManyValues(res);
    expect(res.body.error.details[0].path.slice(0, 1)).toEqual(['files']);
  });

  it('a body at the limit passes the parse step; the store import may hold more', () => {
    // 1 key + 10 items + 10 arrays of 998 items = 9,991 values; one more key and array of 10 pass the limit at its 9th item.
    const atLimit = {
      rows: Array.from({ length: 10 }, () => Array.from({ length: 998 }, () => 0)),
    };
    expect(parseJsonBody(JSON.stringify(atLimit))).toEqual(atLimit);
    const past = { ...atLimit, more: Array.from({ length: 10 }, () => 0) };
    expect(() => parseJsonBody(JSON.stringify(past))).toThrow(
      expect.objectContaining({
        details: [expect.objectContaining({ code: 'too_many_values', path: ['more', '8'] })],
      }),
    );
    expect(parseJsonBody(JSON.stringify(past), { maxValues: Number.MAX_SAFE_INTEGER })).toEqual(
      past,
    );
  });
});

describe('error details are capped', () => {
  it(`a body with hundreds of problems lists ${MAX_ERROR_DETAILS} of them and counts the rest`, async () => {
    const res = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      token: `Bearer ${TOKENS.member}`,
      body: { name: 'x', type: 'APP', ...manyKeys(500, 'unknown') },
    });
    expect(res.status).toBe(400);
    const { details } = res.body.error;
    expect(details).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(
      details
        .slice(0, MAX_ERROR_DETAILS)
        .every((d: { code: string }) => d.code === 'additionalProperties'),
    ).toBe(true);
    expect(details[MAX_ERROR_DETAILS]).toMatchObject({
      code: 'more_details',
      path: [],
      received: `${500 - MAX_ERROR_DETAILS} more`,
    });
    expect(JSON.stringify(res.body).length).toBeLessThan(10_000);
  });

  it("a supplied schema's validation errors (an install's inputs) are capped the same way", async () => {
    const res = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      token: `Bearer ${TOKENS.member}`,
      body: {
        name: 'x',
        type: 'APP',
        inputsSchema: {
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: 5 }]),
          ),
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(res.body.error.details[MAX_ERROR_DETAILS].code).toBe('more_details');
  });

  it('the OpenAPI document says so', async () => {
    const doc = await call(emu.url, 'GET', '/_emulator/openapi.json');
    const envelope = doc.body.components.schemas.ErrorEnvelope;
    expect(envelope.properties.error.properties.details).toMatchObject({
      maxItems: MAX_ERROR_DETAILS + 1,
    });
    expect(envelope.properties.error.properties.details.description).toContain('more_details');
  });
});
