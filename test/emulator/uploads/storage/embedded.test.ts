import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, readdir, rm, stat as statPath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { installErrorHandling } from '../../../../emulator/http.js';
import { EmbeddedStorage } from '../../../../emulator/uploads/storage/embedded.js';
import { embeddedStorageRoutes } from '../../../../emulator/uploads/storage/embedded-routes.js';
import { InvalidKeyError, objectKey } from '../../../../emulator/uploads/storage/keys.js';
import { MAX_FILE_BYTES as DEFAULT_MAX_BYTES } from '#contract';
import { until } from '../../../kit/index.js';
import { generated } from './generated-body.js';

let app: FastifyInstance;
let storage: EmbeddedStorage;
let rootDir: string;
let baseUrl = '';
const anHourAgo = () => new Date(Date.now() - 3600_000);

beforeAll(async () => {
  rootDir = await mkdtemp(join(tmpdir(), 'plugsmith-embedded-'));
  storage = new EmbeddedStorage({
    rootDir,
    baseUrl: () => baseUrl,
    secret: 'test-secret-of-sixteen-bytes-or-more',
  });
  await storage.init();
  app = Fastify({ logger: false, bodyLimit: 1024 * 1024, forceCloseConnections: true });
  installErrorHandling(app);
  await app.register(embeddedStorageRoutes(storage), { prefix: '/_storage' });
  // A JSON route beside the storage routes: their raw-body parser must not leak out of their plugin.
  app.post('/echo', async (req) => ({ ok: true, data: req.body }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await app?.close();
  await storage?.close();
  await rm(rootDir, { recursive: true, force: true });
});

type Body = Buffer | string | Readable;

async function put(url: string, body: Body, headers: Record<string, string> = {}) {
  const response = await request(url, { method: 'PUT', body, headers });
  return {
    status: response.statusCode,
    headers: response.headers,
    json: await jsonOf(response.body.text()),
  };
}

async function get(url: string, method: 'GET' | 'HEAD' = 'GET') {
  const response = await request(url, { method });
  return {
    status: response.statusCode,
    headers: response.headers,
    bytes: Buffer.from(await response.body.arrayBuffer()),
  };
}

async function jsonOf(text: Promise<string>) {
  const raw = await text;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function upload(
  key: string,
  body: Body,
  contentType = 'application/octet-stream',
  maxBytes?: number,
) {
  const result = await put(
    await storage.presignPut(key, { expiresInSeconds: 60, maxBytes }),
    body,
    { 'content-type': contentType },
  );
  expect(result.status, JSON.stringify(result.json)).toBe(200);
  return result;
}

/**
 * A request through node:http, which sends the path exactly as given (undici normalises dot
 * segments away) and lets a declared Content-Length differ from what is sent. With `end: false`
 * the body is left unfinished and the answer is whatever the server sends before it.
 */
function rawRequest(
  path: string,
  options: {
    method: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    end?: boolean;
  },
) {
  const { port } = new URL(baseUrl);
  return new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: options.method, headers: options.headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    if (options.end !== false) req.end();
  });
}

/** Total bytes of the upload files in progress. */
async function temporarySizes(): Promise<number> {
  let total = 0;
  for (const name of await leftovers())
    total += (await statPath(join(rootDir, 'tmp', name)).catch(() => ({ size: 0 }))).size;
  return total;
}

/** Temporary upload files left behind (there should be none once a request is answered). */
async function leftovers(): Promise<string[]> {
  return readdir(join(rootDir, 'tmp'));
}

function expectForbidden(
  result: { status: number; json?: unknown; bytes?: Buffer },
  message: RegExp,
) {
  expect(result.status).toBe(403);
  const body = result.json ?? JSON.parse(result.bytes!.toString());
  expect(body).toMatchObject({
    ok: false,
    error: { error: 'FORBIDDEN', message: expect.stringMatching(message) },
  });
}

describe('embedded storage: signed upload and download', () => {
  it('stores a PUT to the signed URL and serves the same bytes, type and size', async () => {
    const key = objectKey('file_1', 'data.bin', false);
    const body = randomBytes(512 * 1024);
    const result = await upload(key, body, 'application/pdf');
    expect(result.json).toEqual({ ok: true, data: { key, size: body.length } });
    expect(await storage.stat(key)).toEqual({ size: body.length, contentType: 'application/pdf' });

    const url = await storage.presignGet(key, { expiresInSeconds: 60 });
    expect(url.startsWith(`${baseUrl}/_storage/objects/private/file_1/data.bin?`)).toBe(true);
    const download = await get(url);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['content-length']).toBe(String(body.length));
    expect(download.bytes.equals(body)).toBe(true);

    const head = await get(url, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(body.length));
    expect(head.bytes.length).toBe(0);
  });

  it('stores any content type verbatim (the body is never parsed) and an empty body too', async () => {
    const key = objectKey('file_2', 'broken.json', false);
    await upload(key, '{"not": json', 'application/json');
    expect(
      (await get(await storage.presignGet(key, { expiresInSeconds: 60 }))).bytes.toString(),
    ).toBe('{"not": json');
    const empty = objectKey('file_3', 'empty', false);
    const result = await put(await storage.presignPut(empty, { expiresInSeconds: 60 }), '');
    expect(result.status).toBe(200);
    expect(await storage.stat(empty)).toEqual({ size: 0 });
    expect(
      (await get(await storage.presignGet(empty, { expiresInSeconds: 60 }))).headers[
        'content-type'
      ],
    ).toBe('application/octet-stream');
  });

  it('offers the file name in Content-Disposition, UTF-8 names included', async () => {
    const key = objectKey('file_4', 'x', false);
    await upload(key, 'hello', 'text/plain');
    const download = await get(
      await storage.presignGet(key, { expiresInSeconds: 60, fileName: 'Résumé (final).txt' }),
    );
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="R_sum_ (final).txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28final%29.txt`,
    );
  });

  it('replaces an object on a second upload', async () => {
    const key = objectKey('file_5', 'v.txt', false);
    await upload(key, 'first version');
    await upload(key, 'second', 'text/plain');
    expect(await storage.stat(key)).toEqual({ size: 6, contentType: 'text/plain' });
  });

  it('answers 404 for a missing object, and delete removes one', async () => {
    const key = objectKey('file_6', 'gone.txt', false);
    const missing = await get(await storage.presignGet(key, { expiresInSeconds: 60 }));
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.bytes.toString())).toMatchObject({
      ok: false,
      error: { error: 'NOT_FOUND' },
    });
    await upload(key, 'bye');
    await storage.delete(key);
    expect(await storage.stat(key)).toBeNull();
    expect((await get(await storage.presignGet(key, { expiresInSeconds: 60 }))).status).toBe(404);
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('keeps objects in its folder across instances (a data dir survives a restart)', async () => {
    const key = objectKey('file_7', 'kept.txt', true);
    await upload(key, 'durable', 'text/plain');
    const again = new EmbeddedStorage({
      rootDir,
      baseUrl: () => baseUrl,
      secret: 'test-secret-of-sixteen-bytes-or-more',
    });
    await again.init();
    expect(await again.stat(key)).toEqual({ size: 7, contentType: 'text/plain' });
    await again.close();
    expect(await storage.stat(key)).not.toBeNull();
  });

  it('leaves JSON parsing alone outside its own routes', async () => {
    const response = await request(`${baseUrl}/echo`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(await response.body.json()).toEqual({ ok: true, data: { a: 1 } });
  });
});

describe('embedded storage: signatures', () => {
  it('refuses expired URLs for GET and PUT', async () => {
    const key = objectKey('file_10', 'a.txt', false);
    await upload(key, 'kept');
    expectForbidden(
      await get(await storage.presignGet(key, { expiresInSeconds: 60, issuedAt: anHourAgo() })),
      /expired/,
    );
    expectForbidden(
      await put(
        await storage.presignPut(key, { expiresInSeconds: 60, issuedAt: anHourAgo() }),
        'replaced',
      ),
      /expired/,
    );
    expect((await storage.stat(key))?.size).toBe(4);
  });

  it('refuses a tampered signature, expiry, limit, file name or key', async () => {
    const key = objectKey('file_11', 'a.txt', false);
    await upload(key, 'secret');
    const getUrl = new URL(
      await storage.presignGet(key, { expiresInSeconds: 60, fileName: 'a.txt' }),
    );
    const tamper = (base: URL, change: (u: URL) => void) => {
      const copy = new URL(base);
      change(copy);
      return copy.toString();
    };
    const signature = getUrl.searchParams.get('signature')!;
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    expectForbidden(
      await get(tamper(getUrl, (u) => u.searchParams.set('signature', flipped))),
      /does not match/,
    );
    expectForbidden(
      await get(tamper(getUrl, (u) => u.searchParams.set('signature', 'short'))),
      /does not match/,
    );
    expectForbidden(
      await get(
        tamper(getUrl, (u) =>
          u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
        ),
      ),
      /does not match/,
    );
    expectForbidden(
      await get(tamper(getUrl, (u) => u.searchParams.set('filename', 'evil.html'))),
      /does not match/,
    );
    expectForbidden(
      await get(tamper(getUrl, (u) => u.searchParams.delete('expires'))),
      /malformed/,
    );
    expectForbidden(
      await get(tamper(getUrl, (u) => (u.pathname = u.pathname.replace('file_11', 'file_12')))),
      /does not match/,
    );

    const putUrl = new URL(await storage.presignPut(key, { expiresInSeconds: 60, maxBytes: 10 }));
    expectForbidden(
      await put(
        tamper(putUrl, (u) => u.searchParams.set('max', '1000000')),
        'x'.repeat(100),
      ),
      /does not match/,
    );
    // A URL signed for GET does not allow a PUT, nor the reverse.
    expectForbidden(await put(getUrl.toString(), 'overwrite'), /does not match/);
    expectForbidden(await get(putUrl.toString()), /does not match/);
    expect((await storage.stat(key))?.size).toBe(6);
  });

  it('refuses a URL signed with another secret', async () => {
    const key = objectKey('file_13', 'a.txt', false);
    await upload(key, 'secret');
    const stranger = new EmbeddedStorage({
      rootDir,
      baseUrl: () => baseUrl,
      secret: 'other-secret-of-sixteen-bytes-or-more',
    });
    expectForbidden(
      await get(await stranger.presignGet(key, { expiresInSeconds: 60 })),
      /does not match/,
    );
  });

  it('serves public objects without a signature and refuses private ones; uploads always need one', async () => {
    const publicKey = objectKey('file_14', 'logo one.png', true);
    const privateKey = objectKey('file_15', 'logo.png', false);
    await upload(publicKey, 'png-bytes', 'image/png');
    await upload(privateKey, 'png-bytes', 'image/png');
    expect(storage.publicUrl(publicKey)).toBe(
      `${baseUrl}/_storage/objects/public/file_14/logo%20one.png`,
    );
    const open = await get(storage.publicUrl(publicKey));
    expect(open.status).toBe(200);
    expect(open.bytes.toString()).toBe('png-bytes');
    expect(open.headers['content-type']).toBe('image/png');
    expectForbidden(await get(storage.publicUrl(privateKey)), /private/);
    expectForbidden(await put(storage.publicUrl(publicKey), 'vandal'), /signed URL/);
    expect(await storage.stat(publicKey)).toEqual({ size: 9, contentType: 'image/png' });
  });
});

describe('embedded storage: keys', () => {
  it.each([
    ['a .. segment', '/_storage/objects/private/%2E%2E/x'],
    ['a raw .. segment', '/_storage/objects/private/../../x'],
    ['a . segment', '/_storage/objects/private/./x'],
    ['an empty segment', '/_storage/objects/private//x'],
    ['a trailing slash', '/_storage/objects/private/x/'],
    ['a leading slash', '/_storage/objects//etc/passwd'],
    ['a backslash', '/_storage/objects/private/a%5Cb'],
    ['a control character', '/_storage/objects/private/a%01b'],
    ['no key', '/_storage/objects/'],
  ])(
    'answers 400 to %s (an unsigned PUT hears first that it needs a signed URL)',
    async (_name, path) => {
      const read = await rawRequest(path, { method: 'GET' });
      expect(read.status, `GET ${path}`).toBe(400);
      expect(read.json).toMatchObject({
        ok: false,
        error: { error: 'VALIDATION_ERROR', message: expect.stringMatching(/Invalid object key/) },
      });
      const write = await rawRequest(path, { method: 'PUT', body: 'x' });
      expect(write.status, `PUT ${path}`).toBe(403);
      expect(write.json).toMatchObject({
        ok: false,
        error: { error: 'FORBIDDEN', message: expect.stringMatching(/signed URL/) },
      });
    },
  );

  it('refuses bad keys before signing', async () => {
    await expect(storage.presignPut('../escape', { expiresInSeconds: 60 })).rejects.toThrow(
      InvalidKeyError,
    );
    await expect(storage.presignGet('/etc/passwd', { expiresInSeconds: 60 })).rejects.toThrow(
      InvalidKeyError,
    );
    expect(() => storage.publicUrl('public/a\\b')).toThrow(InvalidKeyError);
    await expect(storage.stat('a//b')).rejects.toThrow(InvalidKeyError);
    await expect(storage.presignGet('ok', { expiresInSeconds: 1.5 })).rejects.toThrow(RangeError);
  });
});

describe('embedded storage: size limit', () => {
  it('accepts a body of exactly the signed limit', async () => {
    const key = objectKey('file_20', 'exact.bin', false);
    await upload(key, generated(1000), 'application/octet-stream', 1000);
    expect(await storage.stat(key)).toEqual({
      size: 1000,
      contentType: 'application/octet-stream',
    });
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const key = objectKey('file_21', 'big.bin', false);
    const url = await storage.presignPut(key, { expiresInSeconds: 60, maxBytes: 1000 });
    const result = await put(url, Buffer.alloc(1001));
    expect(result.status).toBe(413);
    expect(result.json).toMatchObject({
      ok: false,
      error: { error: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/1000 bytes/) },
    });
    expect(await storage.stat(key)).toBeNull();
  });

  it('cuts off a streamed body once it passes the limit and leaves no file', async () => {
    const key = objectKey('file_22', 'stream.bin', false);
    await upload(key, 'the old version');
    const url = await storage.presignPut(key, { expiresInSeconds: 60, maxBytes: 100_000 });
    const result = await put(url, generated(300_000));
    expect(result.status).toBe(413);
    expect(result.json).toMatchObject({ ok: false, error: { error: 'PAYLOAD_TOO_LARGE' } });
    // The earlier object is untouched and no partial file is left.
    expect(await storage.stat(key)).toEqual({ size: 15, contentType: 'application/octet-stream' });
    expect(await leftovers()).toEqual([]);
  });

  it('removes the partial file when the uploader goes away mid-body', async () => {
    const key = objectKey('file_25', 'abandoned.bin', false);
    const { pathname, search } = new URL(await storage.presignPut(key, { expiresInSeconds: 60 }));
    const { port } = new URL(baseUrl);
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: pathname + search,
      method: 'PUT',
      headers: { 'content-length': '1000000' },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(200_000));
    await until('200,000 bytes on disk', async () => (await temporarySizes()) >= 200_000, 10_000);
    expect(await temporarySizes()).toBe(200_000);
    req.destroy();
    await until('no leftover file', async () => (await leftovers()).length === 0, 10_000);
    expect(await leftovers()).toEqual([]);
    expect(await storage.stat(key)).toBeNull();
  });

  it('never lets a presigned limit exceed the store limit', async () => {
    const url = new URL(
      await storage.presignPut('private/huge', {
        expiresInSeconds: 60,
        maxBytes: 10 * DEFAULT_MAX_BYTES,
      }),
    );
    expect(url.searchParams.get('max')).toBe(String(DEFAULT_MAX_BYTES));
  });

  it('refuses a declared Content-Length over 100 MB without a signed limit', async () => {
    const key = objectKey('file_24', 'declared.bin', false);
    const url = await storage.presignPut(key, { expiresInSeconds: 60 });
    const { pathname, search } = new URL(url);
    const response = await rawRequest(pathname + search, {
      method: 'PUT',
      headers: { 'content-length': String(DEFAULT_MAX_BYTES + 1) },
      body: Buffer.alloc(64 * 1024),
      end: false,
    });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ ok: false, error: { error: 'PAYLOAD_TOO_LARGE' } });
    expect(await storage.stat(key)).toBeNull();
  });
});

describe('embedded storage: lifecycle', () => {
  it('without a folder, works in a temporary one, made at the first write, that close() removes', async () => {
    const ephemeral = new EmbeddedStorage({
      baseUrl: () => baseUrl,
      secret: 'signing-key-of-the-test-1234567',
    });
    await ephemeral.init();
    // Nothing stored yet: no folder, and nothing to find or delete.
    expect((ephemeral as unknown as { root: string | undefined }).root).toBeUndefined();
    expect(await ephemeral.stat('private/x')).toBeNull();
    await ephemeral.delete('private/x');
    await ephemeral.write('private/x', Readable.from([Buffer.from('hello')]), 100, 'text/plain');
    const root = (ephemeral as unknown as { root: string }).root;
    expect((await statPath(root)).isDirectory()).toBe(true);
    expect(await ephemeral.stat('private/x')).toEqual({ size: 5, contentType: 'text/plain' });
    await ephemeral.close();
    await expect(statPath(root)).rejects.toThrow(/ENOENT/);
    await expect(
      ephemeral.write('private/y', Readable.from([Buffer.from('late')]), 100),
    ).rejects.toThrow(/before init/);
  });

  it('refuses to work before init()', async () => {
    const early = new EmbeddedStorage({
      baseUrl: () => baseUrl,
      secret: 'signing-key-of-the-test-1234567',
    });
    await expect(early.stat('private/x')).rejects.toThrow(/before init/);
  });
});
