import { describe, expect, test } from 'vitest';
import { ORG, TOKENS, useMatrixEmulator } from '../../kit/matrix-emulator.js';
import { expectError, expectValidationError } from '../../kit/envelope.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// The error envelope and the status codes of docs/emulator-behaviour.md ("Envelope and errors") for input that never reaches a handler's logic.

const emulator = useMatrixEmulator();
const call = (...args: Parameters<(typeof emulator)['current']['call']>) =>
  emulator.current.call(...args);
const json = { 'content-type': 'application/json' };

describe('bodies that are not a JSON object', () => {
  test.each([
    ['malformed JSON', '{"name": "x",', json, 400],
    ['an empty body with a JSON content type', '', json, 400],
    ['a JSON array', '[1,2]', json, 400],
    ['JSON null', 'null', json, 400],
    ['a JSON string', '"hello"', json, 400],
    ['a __proto__ key', '{"name":"x","type":"APP","__proto__":{"admin":true}}', json, 400],
    [
      'a constructor.prototype key',
      '{"name":"x","type":"APP","constructor":{"prototype":{"admin":true}}}',
      json,
      400,
    ],
    ['text/plain', 'name=x', { 'content-type': 'text/plain' }, 400],
    ['application/xml', '<plugin/>', { 'content-type': 'application/xml' }, 415],
    [
      'form encoding',
      'name=x&type=APP',
      { 'content-type': 'application/x-www-form-urlencoded' },
      415,
    ],
  ])('%s is a 4xx in the envelope', async (_name, rawBody, headers, status) => {
    const response = await call('POST', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      rawBody,
      headers,
    });
    expectError(response, status);
  });

  test('no body at all is a 400 with details', async () => {
    expectValidationError(
      await call('POST', `/api/orgs/${ORG}/plugins`, { token: TOKENS.owner }),
      [],
    );
  });

  test('a body over the limit is 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await call('POST', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      body: { name: 'x', type: 'APP', description: 'y'.repeat(1_100_000) },
    });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('nothing was created by any of them', async () => {
    const names = [...emulatorInternals(emulator.current.emu).db.plugins.values()].map(
      (p) => p.name,
    );
    expect(names).toEqual([]);
  });
});

describe('validation details', () => {
  test('each entry has code, expected, received, path (strings) and message', async () => {
    const response = await call('POST', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      body: {
        name: 'x',
        type: 'APP',
        events: ['PLUGIN_INSTALLED', 'NOPE'],
        isPublic: 'yes',
        extra: 1,
      },
    });
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/^Invalid request body/);
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: ['events', '1'], code: 'enum', received: 'NOPE' }),
        expect.objectContaining({
          path: ['isPublic'],
          code: 'type',
          expected: 'boolean',
          received: 'yes',
        }),
        expect.objectContaining({
          path: ['extra'],
          code: 'additionalProperties',
          expected: 'absent',
          received: 'extra',
        }),
      ]),
    );
    for (const d of error.details!) expect(d.message).toContain(d.path.join('.'));
  });

  test('401, 403, 404 and 409 carry no details', async () => {
    const plugin = await emulator.current.createPlugin();
    await emulator.current.createDefinition(plugin.id, 'actions', { name: 'dup' });
    const errors = [
      expectError(await call('GET', `/api/plugins/${plugin.id}`), 401),
      expectError(await call('DELETE', `/api/plugins/${plugin.id}`, { token: TOKENS.viewer }), 403),
      expectError(await call('GET', `/api/plugins/${plugin.id}`, { token: TOKENS.outsider }), 404),
      expectError(
        await call('POST', `/api/plugins/${plugin.id}/actions`, {
          token: TOKENS.owner,
          body: { name: 'dup' },
        }),
        409,
      ),
    ];
    for (const error of errors) expect(error).not.toHaveProperty('details');
  });
});

describe('authentication comes first', () => {
  test('without a token an invalid body is 401, not 400', async () => {
    const plugin = await emulator.current.createPlugin();
    expectError(await call('POST', `/api/orgs/${ORG}/plugins`, { body: { bogus: true } }), 401);
    expectError(await call('POST', '/api/repositories', { body: [] }), 401);
    expectError(await call('PUT', `/api/plugins/${plugin.id}`, { body: {} }), 401);
    expectError(
      await call('POST', `/api/plugins/${plugin.id}/external-events`, {
        body: { name: 'has space' },
      }),
      401,
    );
  });

  test.each([
    ['an unknown token', 'pst_nope'],
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['"Bearer" with nothing after it', 'Bearer'],
    ['a messaging API key', 'Bearer psk_matrix_acme'],
  ])('%s is 401 UNAUTHORIZED', async (_name, token) => {
    expectError(await call('GET', `/api/orgs/${ORG}/plugins`, { token }), 401);
  });
});

describe('URLs', () => {
  test('an unknown route is a 404 in the envelope', async () => {
    expectError(await call('GET', '/api/widgets', { token: TOKENS.owner }), 404);
  });

  test('a known path with a method it does not have is a 405 in the envelope, with Allow', async () => {
    const answer = await call('PATCH', `/api/orgs/${ORG}/plugins`, {
      token: TOKENS.owner,
      body: {},
    });
    expectError(answer, 405, 'VALIDATION_ERROR');
    expect(answer.headers.allow).toBe('GET, HEAD, POST');
  });

  test('a path parameter longer than the router allows is a 400 in the envelope', async () => {
    expectError(await call('GET', `/api/plugins/${'p'.repeat(300)}`, { token: TOKENS.owner }), 400);
  });

  test('a path parameter that does not decode is a 400 in the envelope', async () => {
    expectError(await call('GET', '/api/plugins/%E0%A4%A', { token: TOKENS.owner }), 400);
  });

  test('a path parameter that decodes to odd characters is just an unknown id', async () => {
    expectError(
      await call('GET', `/api/plugins/${encodeURIComponent('../../etc/passwd')}`, {
        token: TOKENS.owner,
      }),
      404,
    );
    expectError(
      await call('GET', `/api/repositories/${encodeURIComponent('__proto__')}`, {
        token: TOKENS.owner,
      }),
      404,
    );
    expectError(
      await call('GET', `/api/orgs/${encodeURIComponent('constructor')}/plugins`, {
        token: TOKENS.owner,
      }),
      404,
    );
  });
});
