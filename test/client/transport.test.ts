import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiError, createClient, NetworkError, type TraceEvent } from '../../src/client/index.js';
import { createAgent } from '../../src/shared/http/undici.js';
import { json, ok, receiver } from '../kit/index.js';

describe('retries', () => {
  it('retries a GET after a connection reset, then succeeds', async () => {
    const server = await receiver((_req, res, index) => {
      if (index === 0) return void res.socket!.destroy();
      ok(res, { id: 'plg_1' });
    });
    const client = createClient({ baseUrl: server.url, retryBaseMs: 1 });
    expect(await client.plugins.get('plg_1')).toEqual({ id: 'plg_1' });
    expect(server.received).toHaveLength(2);
  });

  it('retries a GET after 503 and 504, then succeeds', async () => {
    const server = await receiver((_req, res, index) => {
      if (index === 0)
        return json(res, 503, { ok: false, error: { message: 'busy', error: 'SERVER_ERROR' } });
      if (index === 1) return json(res, 504, {});
      ok(res, [], { pagination: { type: 'cursor', limit: 20, hasNext: false, nextCursor: null } });
    });
    const client = createClient({ baseUrl: server.url, retryBaseMs: 1 });
    const page = await client.actions.list('plg_1');
    expect(page.data).toEqual([]);
    expect(server.received).toHaveLength(3);
  });

  it('gives up after the configured retries with the last ApiError', async () => {
    const server = await receiver((_req, res) => json(res, 502, {}));
    const client = createClient({ baseUrl: server.url, retries: 1, retryBaseMs: 1 });
    const error = await client.plugins.get('p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(502);
    expect(server.received).toHaveLength(2);
  });

  it('gives up on repeated network errors with a NetworkError counting the attempts', async () => {
    const server = await receiver((_req, res) => void res.socket!.destroy());
    const client = createClient({ baseUrl: server.url, retries: 2, retryBaseMs: 1 });
    const error = await client.plugins.get('p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ attempts: 3 });
    expect(server.received).toHaveLength(3);
  });

  it('does not retry a 500 or a 4xx', async () => {
    const server = await receiver((_req, res) =>
      json(res, 500, { ok: false, error: { message: 'bug', error: 'SERVER_ERROR' } }),
    );
    const client = createClient({ baseUrl: server.url, retryBaseMs: 1 });
    await expect(client.plugins.get('p')).rejects.toBeInstanceOf(ApiError);
    expect(server.received).toHaveLength(1);
  });

  it.each([
    ['POST', (c: ReturnType<typeof createClient>) => c.plugins.create({ name: 'p', type: 'APP' })],
    ['PUT', (c: ReturnType<typeof createClient>) => c.plugins.update('p', { name: 'q' })],
    [
      'PATCH',
      (c: ReturnType<typeof createClient>) =>
        c.uploads.setStatus({ fileId: 'f', status: 'UPLOADED' }),
    ],
    ['DELETE', (c: ReturnType<typeof createClient>) => c.plugins.delete('p')],
    [
      'POST generate-upload-url (creates records)',
      (c: ReturnType<typeof createClient>) =>
        c.uploads.generateUploadUrls({ files: [{ fileName: 'a' }] }),
    ],
  ])('never retries %s, neither on 503 nor on a reset', async (_name, call) => {
    const unavailable = await receiver((_req, res) => json(res, 503, {}));
    await expect(
      call(createClient({ baseUrl: unavailable.url, retryBaseMs: 1 })),
    ).rejects.toMatchObject({ status: 503 });
    expect(unavailable.received).toHaveLength(1);
    const resetting = await receiver((_req, res) => void res.socket!.destroy());
    await expect(
      call(createClient({ baseUrl: resetting.url, retryBaseMs: 1 })),
    ).rejects.toBeInstanceOf(NetworkError);
    expect(resetting.received).toHaveLength(1);
  });

  it('honours Retry-After instead of its own backoff', async () => {
    const times: number[] = [];
    const server = await receiver((_req, res, index) => {
      times.push(performance.now());
      if (index === 0) return json(res, 503, {}, { 'retry-after': '1' });
      ok(res, {});
    });
    const client = createClient({ baseUrl: server.url, retryBaseMs: 1 });
    await client.plugins.get('p');
    expect(times).toHaveLength(2);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    const server = await receiver((_req, res) => json(res, 503, {}, { 'retry-after': '3600' }));
    const client = createClient({ baseUrl: server.url, retryBaseMs: 1 });
    await expect(client.plugins.get('p')).rejects.toMatchObject({ status: 503 });
    expect(server.received).toHaveLength(1);
  });
});

describe('timeouts and aborts', () => {
  it('turns a server that never answers into a NetworkError ETIMEDOUT', async () => {
    const server = await receiver(() => undefined);
    const client = createClient({ baseUrl: server.url, timeoutMs: 100, retries: 0 });
    const started = performance.now();
    const error = await client.plugins.get('p').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'ETIMEDOUT' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('times out a body that stalls after the headers', async () => {
    const server = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":true,');
    });
    const client = createClient({ baseUrl: server.url, timeoutMs: 100, retries: 0 });
    await expect(client.plugins.get('p')).rejects.toMatchObject({
      name: 'NetworkError',
      code: 'ETIMEDOUT',
    });
  });

  it("reports the dispatcher's own timeouts (with timeoutMs 0) as ETIMEDOUT too", async () => {
    const server = await receiver(() => undefined);
    const dispatcher = createAgent({ headersTimeout: 100 });
    onTestFinished(() => dispatcher.close());
    const client = createClient({ baseUrl: server.url, timeoutMs: 0, retries: 0, dispatcher });
    await expect(client.emulator.health()).rejects.toMatchObject({
      name: 'NetworkError',
      code: 'ETIMEDOUT',
      message: expect.stringContaining('timed out (ETIMEDOUT)'),
    });
  });

  it('retries a timed-out GET (the per-attempt timeout) and then succeeds', async () => {
    const server = await receiver((_req, res, index) => {
      if (index > 0) ok(res, { id: 'p' });
    });
    const client = createClient({ baseUrl: server.url, timeoutMs: 100, retryBaseMs: 1 });
    expect(await client.plugins.get('p')).toEqual({ id: 'p' });
    expect(server.received).toHaveLength(2);
  });

  it('rejects with the caller’s abort reason, not a NetworkError, and does not retry', async () => {
    const server = await receiver(() => undefined);
    const client = createClient({ baseUrl: server.url, retryBaseMs: 1 });
    const reason = new Error('user pressed ctrl-c');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    await expect(client.plugins.get('p', { signal: controller.signal })).rejects.toBe(reason);
    expect(server.received).toHaveLength(1);
  });
});

describe('trace', () => {
  const token = 'pst_' + 'S3cr3tS3cr3tS3cr3tS3cr3t' + 'abcd';

  it('reports each attempt with the Authorization header redacted and no secret anywhere', async () => {
    const server = await receiver((_req, res, index) => {
      if (index === 0) return json(res, 503, {}, { 'set-cookie': 'session=hunter2' });
      ok(res, { token: 'not traced' });
    });
    const traces: TraceEvent[] = [];
    const client = createClient({
      baseUrl: server.url,
      messagingUrl: server.url,
      token,
      apiKey: 'key_' + 'K'.repeat(30) + 'wxyz',
      retryBaseMs: 1,
      onTrace: (e) => traces.push(e),
    });
    await client.plugins.get('plg_1');
    await client.messaging.conversations.get('conv_1');
    expect(server.received[0].headers.authorization).toBe(`Bearer ${token}`);
    expect(traces).toHaveLength(3);
    expect(traces[0]).toMatchObject({
      api: 'management',
      method: 'GET',
      url: `${server.url}/api/plugins/plg_1`,
      status: 503,
      attempt: 1,
    });
    expect(traces[0].retryInMs).toBeGreaterThanOrEqual(0);
    expect(traces[1]).toMatchObject({ status: 200, attempt: 2, retryInMs: undefined });
    expect(traces[0].requestHeaders.authorization).toBe('Bearer pst_…abcd');
    expect(traces[0].responseHeaders?.['set-cookie']).toBe('[redacted]');
    expect(traces[2]).toMatchObject({
      api: 'messaging',
      requestHeaders: { authorization: 'Bearer key_…wxyz' },
    });
    expect(typeof traces[0].durationMs).toBe('number');
    const all = JSON.stringify(traces);
    expect(all).not.toContain('S3cr3t');
    expect(all).not.toContain('KKKK');
    expect(all).not.toContain('hunter2');
  });

  it('hides short tokens completely and traces network errors', async () => {
    const server = await receiver((_req, res) => void res.socket!.destroy());
    const traces: TraceEvent[] = [];
    const client = createClient({
      baseUrl: server.url,
      token: 'tok_olive',
      retries: 0,
      onTrace: (e) => traces.push(e),
    });
    await client.plugins.get('p').catch(() => undefined);
    expect(traces[0].requestHeaders.authorization).toBe('Bearer [redacted]');
    expect(traces[0].status).toBeUndefined();
    expect(traces[0].error?.code).toBeTruthy();
    expect(JSON.stringify(traces)).not.toContain('olive');
  });

  it('a throwing trace callback does not fail the request', async () => {
    const server = await receiver((_req, res) => ok(res, { id: 'p' }));
    const client = createClient({
      baseUrl: server.url,
      onTrace: () => {
        throw new Error('bad logger');
      },
    });
    expect(await client.plugins.get('p')).toEqual({ id: 'p' });
  });
});

describe('GET with a JSON body', () => {
  it('reaches a platform with only the GET form of generate-upload-url (its POST a 405) with content-type and content-length', async () => {
    const server = await receiver((req, res) => {
      if (req.method === 'POST')
        return json(res, 405, { ok: false, error: { message: 'no POST', error: 'HTTP_ERROR' } });
      ok(res, {
        files: [{ signedUrl: 'http://s3.test/a', fileRecord: { id: 'f1', fileName: 'a.txt' } }],
      });
    });
    const client = createClient({ baseUrl: server.url, token: 'tok_olive' });
    const result = await client.uploads.generateUploadUrls({
      files: [{ fileName: 'a.txt', contentType: 'text/plain', fileSize: 5 }],
    });
    expect(result.files[0].fileRecord.id).toBe('f1');
    expect(server.received.map((r) => r.method)).toEqual(['POST', 'GET']);
    const got = server.received[1];
    expect(got.method).toBe('GET');
    expect(got.headers['content-type']).toBe('application/json');
    expect(Number(got.headers['content-length'])).toBe(got.body.length);
    expect(JSON.parse(got.body)).toEqual({
      files: [{ fileName: 'a.txt', contentType: 'text/plain', fileSize: 5 }],
    });
  });
});

describe('proxy environment', () => {
  function setEnv(vars: Record<string, string>) {
    const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    onTestFinished(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
  }

  it('sends requests through HTTP_PROXY', async () => {
    // A forward proxy receives the absolute URL in the request line.
    const proxy = await receiver((_req, res) => ok(res, { via: 'proxy' }));
    setEnv({ HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: '', no_proxy: '' });
    const client = createClient({
      baseUrl: 'http://platform.invalid',
      token: 'tok_olive',
      timeoutMs: 3000,
      retries: 0,
    });
    onTestFinished(() => client.close());
    expect(await client.plugins.get('plg_1')).toEqual({ via: 'proxy' });
    expect(proxy.received[0].url).toBe('http://platform.invalid/api/plugins/plg_1');
    expect(proxy.received[0].headers.authorization).toBe('Bearer tok_olive');
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    const proxy = await receiver((_req, res) => ok(res, { via: 'proxy' }));
    const origin = await receiver((_req, res) => ok(res, { via: 'direct' }));
    setEnv({
      HTTP_PROXY: proxy.url,
      http_proxy: proxy.url,
      NO_PROXY: '127.0.0.1',
      no_proxy: '127.0.0.1',
    });
    const client = createClient({ baseUrl: origin.url, timeoutMs: 3000, retries: 0 });
    onTestFinished(() => client.close());
    expect(await client.plugins.get('p')).toEqual({ via: 'direct' });
    expect(proxy.received).toHaveLength(0);
  });
});
