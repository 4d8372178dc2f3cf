import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createClient,
  isApiError,
  isNetworkError,
  NetworkError,
} from '../../src/client/index.js';
import { json, receiver } from '../kit/index.js';

async function failWith(status: number, body: string | object, contentType = 'application/json') {
  const server = await receiver((_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  const client = createClient({ baseUrl: server.url, token: 'tok_olive', retries: 0 });
  const error = await client.plugins.get('plg_1').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const details = [
  {
    code: 'invalid_type',
    expected: 'integer',
    received: 'ten',
    path: ['@limit'],
    message: '@limit must be a whole number',
  },
];

describe('error mapping', () => {
  it.each([
    [400, 'VALIDATION_ERROR', 'Invalid query parameters'],
    [401, 'UNAUTHORIZED', 'A valid token is required'],
    [403, 'FORBIDDEN', 'OWNER role required'],
    [404, 'NOT_FOUND', 'plugin plg_1 not found'],
    [409, 'CONFLICT', 'action exists'],
    [500, 'SERVER_ERROR', 'Internal error'],
  ])(
    '%i %s envelope becomes an ApiError with status, type, message, method and url',
    async (status, type, message) => {
      const error = await failWith(status, { ok: false, error: { message, error: type } });
      expect(error).toMatchObject({ status, type, message, method: 'GET' });
      expect(error.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/plugins\/plg_1$/);
      expect(error.details).toEqual([]);
      expect(isApiError(error, type)).toBe(true);
      expect(isApiError(error, 'SOMETHING_ELSE')).toBe(false);
      expect(isNetworkError(error)).toBe(false);
    },
  );

  it('carries details entries with code, expected, received, path and message', async () => {
    const error = await failWith(400, {
      ok: false,
      error: { message: 'Invalid query parameters', error: 'VALIDATION_ERROR', details },
    });
    expect(error.details).toEqual(details);
  });

  it('names an HTML page from a proxy instead of dumping it, typed by status', async () => {
    const error = await failWith(
      502,
      '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
      'text/html',
    );
    expect(error.status).toBe(502);
    expect(error.type).toBe('SERVER_ERROR');
    expect(error.message).toContain('HTTP 502');
    expect(error.message).toContain('"502 Bad Gateway"');
    expect(error.message).not.toContain('nginx');
    expect(error.body).toContain('nginx');
  });

  it('quotes the first line of a plain-text error', async () => {
    const error = await failWith(403, 'Forbidden by corporate proxy\nsecond line', 'text/plain');
    expect(error.type).toBe('FORBIDDEN');
    expect(error.message).toMatch(/HTTP 403: Forbidden by corporate proxy$/);
  });

  it('handles an empty error body', async () => {
    const error = await failWith(404, '', 'text/plain');
    expect(error).toMatchObject({ status: 404, type: 'NOT_FOUND', body: undefined });
    expect(error.message).toMatch(/HTTP 404$/);
  });

  it('handles JSON errors in another shape and unknown statuses', async () => {
    const error = await failWith(418, { message: 'teapot' });
    expect(error).toMatchObject({ status: 418, type: 'HTTP_ERROR' });
  });

  it('treats ok:false as an error even with status 200', async () => {
    const error = await failWith(200, {
      ok: false,
      error: { message: 'nope', error: 'FORBIDDEN' },
    });
    expect(error).toMatchObject({ status: 200, type: 'FORBIDDEN', message: 'nope' });
  });

  it('rejects a 200 HTML page (wrong base URL) as INVALID_RESPONSE', async () => {
    const error = await failWith(200, '<!doctype html><html>SPA</html>', 'text/html');
    expect(error.type).toBe('INVALID_RESPONSE');
    expect(error.message).toContain('base URL');
  });

  it('maps connection refused to a NetworkError with the cause code', async () => {
    const server = await receiver((_req, res) => json(res, 200, {}));
    const url = server.url;
    await server.close();
    const client = createClient({ baseUrl: url, retries: 0 });
    const error = await client.plugins.get('p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', method: 'GET', attempts: 1 });
    expect((error as Error).message).toContain('connection refused');
    expect(isApiError(error)).toBe(false);
  });

  it('maps an unknown host to a NetworkError (ENOTFOUND or EAI_AGAIN)', async () => {
    const client = createClient({ baseUrl: 'http://plugsmith-does-not-exist.invalid', retries: 0 });
    const error = await client.plugins.get('p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain((error as NetworkError).code);
  });
});
