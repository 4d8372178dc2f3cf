import { call, emulator } from '../kit/index.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import {
  boundedFormats,
  fullFormats,
  MAX_FORMAT_LENGTH,
} from '../../emulator/validation/formats.js';
import { validateAgainst } from '../../emulator/validation/json-schema.js';
import { ROLES_SEED, TOKENS } from '../kit/roles-seed.js';
import { verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { FORMAT_ATTACKS } from '../../bench/format-attacks.js';

// Issue 24, item 1: ajv-formats checks `format` with V8's backtracking regular expressions, and its
// `url` expression backtracks quadratically: a MEMBER's plugin with `{ type: 'string', format: 'url' }`
// installed with `http://` + 64,000 `:` + a space held the whole process about 18 s (health too).
// Every format ajv-formats offers now runs in bounded time (emulator/validation/formats.ts). Each
// install below must be answered, and health with it, within a bound far above what a bounded check
// costs on a loaded machine and far below what the backtracking took.
// ajv-formats' formats as emulator/validation/formats.ts reads them (through ajv-formats' public API).
const formatNames = Object.keys(fullFormats);

let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;
beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED, delivery: { timeScale: 0.01 } });
  hook = await WebhookServer.start();
  const properties = Object.fromEntries(
    Object.keys(FORMAT_ATTACKS).map((format) => [format, { type: 'string', format }]),
  );
  const plugin = await verifiedPlugin(emu, TOKENS.member, 'org_acme', {
    type: 'DATA_PROVIDER',
    webhookUrl: hook.url,
    events: ['PLUGIN_INSTALLED'],
    scopes: ['REPOSITORY_FILES_READ'],
    inputsSchema: { type: 'object', properties },
  });
  pluginId = plugin.id;
});
afterAll(async () => {
  await hook?.close();
});

async function timedHealth(): Promise<number> {
  const start = performance.now();
  const res = await request(`${emu.url}/_emulator/health`);
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return performance.now() - start;
}

const install = (inputs: Record<string, unknown>, name = 'i') =>
  call(emu.url, 'POST', '/api/repositories/repo_acme/data-providers', {
    bearer: TOKENS.member,
    body: {
      name,
      pluginId,
      events: ['PLUGIN_INSTALLED'],
      scopes: ['REPOSITORY_FILES_READ'],
      inputs,
    },
  });

describe('format checks run in bounded time', () => {
  it('covers every string format ajv-formats offers', () => {
    const stringFormats = formatNames.filter((name) => {
      const f = fullFormats[name] as { type?: string } | boolean;
      return (
        f !== true &&
        (typeof f !== 'object' ||
          f === null ||
          f instanceof RegExp ||
          f.type === undefined ||
          f.type === 'string')
      );
    });
    expect(Object.keys(boundedFormats).sort()).toEqual(stringFormats.sort());
    expect(Object.keys(FORMAT_ATTACKS).sort()).toEqual(stringFormats.sort());
  });

  for (const [format, value] of Object.entries(FORMAT_ATTACKS)) {
    it(`${format}: an install with a long adversarial value is a 400 naming the input, and health answers meanwhile`, async () => {
      const start = performance.now();
      const [installed, ...healths] = await Promise.all([
        install({ [format]: value }).then((r) => ({ ...r, ms: performance.now() - start })),
        timedHealth(),
        timedHealth(),
      ]);
      expect(installed.status, JSON.stringify(installed.body).slice(0, 300)).toBe(400);
      expect(
        installed.body.error.details.map((d: { path: string[] }) => d.path.join('.')),
      ).toContain(`inputs.${format}`);
      // Bounded checks answer in milliseconds; the backtracking url check took about 18 s here.
      expect(installed.ms).toBeLessThan(2_000);
      for (const ms of healths) expect(ms).toBeLessThan(2_000);
    });
  }

  it('valid values of each format are still accepted by an install, and short invalid ones refused', async () => {
    const valid = {
      date: '2024-02-29',
      time: '23:59:60Z',
      'date-time': '2024-01-01T10:00:00.5+02:00',
      'iso-time': '10:00:00',
      'iso-date-time': '2024-01-01 10:00:00',
      duration: 'P1Y2M3DT4H5M6S',
      uri: 'https://example.com/a?b#c',
      'uri-reference': '../a/b',
      'uri-template': 'https://x.org/{id}{?q*}',
      url: 'https://user:pw@example.com:8080/path?q=1',
      email: 'a.b+c@example.co',
      hostname: 'api.example.com',
      ipv4: '192.168.0.1',
      ipv6: '::ffff:1.2.3.4',
      regex: '^(a+)+$',
      uuid: 'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
      'json-pointer': '/a~1b/0',
      'json-pointer-uri-fragment': '#/a%20b',
      'relative-json-pointer': '1/a',
      byte: 'aGVsbG8=',
    };
    const ok = await install(valid, 'valid');
    expect(ok.status, JSON.stringify(ok.body).slice(0, 500)).toBe(201);
    const invalid = {
      date: '2023-02-29',
      time: '24:00:00Z',
      'date-time': '2024-01-01 10:00:00',
      'iso-time': '10:60:00',
      'iso-date-time': '2024-13-01T10:00:00',
      duration: 'PT',
      uri: 'no scheme',
      'uri-reference': 'a b',
      'uri-template': '{a',
      url: 'http://10.0.0.1/private',
      email: 'a@b@c',
      hostname: '-bad.example',
      ipv4: '256.1.1.1',
      ipv6: '1:::2',
      regex: '(',
      uuid: '123e4567-e89b-12d3-a456',
      'json-pointer': 'a/b',
      'json-pointer-uri-fragment': '#/a b',
      'relative-json-pointer': '01',
      byte: 'aGVsbG8',
    };
    const refused = await install(invalid, 'invalid');
    expect(refused.status).toBe(400);
    // One detail per format (the error envelope lists at most 20, then counts the rest).
    const paths = refused.body.error.details.map((d: { path: string[] }) => d.path.join('.'));
    expect(paths.slice(0, 20).sort()).toEqual(
      Object.keys(invalid)
        .map((f) => `inputs.${f}`)
        .sort(),
    );
  });

  it("the emulator's own route schemas check formats the same bounded way (fastify's ajv)", async () => {
    const res = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
      bearer: TOKENS.member,
      body: {
        name: 'p',
        type: 'APP',
        webhookUrl: `https://example.com/${'a'.repeat(MAX_FORMAT_LENGTH)}`,
      },
    });
    expect(res.status).toBe(400);
    const format = res.body.error.details.find((d: { code: string }) => d.code === 'format');
    expect(format, JSON.stringify(res.body.error.details)).toMatchObject({
      path: ['webhookUrl'],
      message: `webhookUrl is longer than ${MAX_FORMAT_LENGTH} characters, the most a format (uri) is checked on`,
    });
  });

  it('a value at the length cap is still judged by the format, one past it fails the format', () => {
    const schema = { type: 'string', format: 'uri' };
    const atCap = `https://example.com/${'a'.repeat(MAX_FORMAT_LENGTH - 'https://example.com/'.length)}`;
    expect(validateAgainst(schema, atCap, ['u'])).toEqual([]);
    expect(validateAgainst(schema, `${atCap}a`, ['u'])[0]).toMatchObject({
      code: 'format',
      path: ['u'],
      message: `u is longer than ${MAX_FORMAT_LENGTH} characters, the most a format (uri) is checked on`,
    });
    // base64 payloads are not capped.
    expect(
      validateAgainst({ type: 'string', format: 'byte' }, 'AAAA'.repeat(MAX_FORMAT_LENGTH), ['b']),
    ).toEqual([]);
  });
});
