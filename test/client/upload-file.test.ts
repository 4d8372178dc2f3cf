import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, createClient, type TraceEvent } from '../../src/client/index.js';
import { receiver, server, tempDir } from '../kit/index.js';

async function tempFile(bytes: Buffer): Promise<string> {
  const dir = await tempDir('plugsmith-upload-');
  const path = join(dir, 'report.pdf');
  await writeFile(path, bytes);
  return path;
}

describe('uploadFile', () => {
  it('streams a file with a plain PUT, Content-Length and type, no Authorization, and reports progress', async () => {
    const bytes = randomBytes(300 * 1024 + 7);
    const path = await tempFile(bytes);
    const server = await receiver((_req, res) => {
      res.writeHead(200, { etag: '"abc"' });
      res.end();
    });
    const traces: TraceEvent[] = [];
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      token: 'tok_olive',
      onTrace: (e) => traces.push(e),
    });
    const progress: number[] = [];
    const signedUrl = `${server.url}/bucket/report.pdf?X-Amz-Credential=AKIA%2Fsecret&X-Amz-Signature=deadbeef&X-Amz-Expires=60`;
    const result = await client.uploads.uploadFile(signedUrl, path, {
      contentType: 'application/pdf',
      onProgress: (sent) => progress.push(sent),
    });

    expect(result).toMatchObject({ status: 200, etag: '"abc"' });
    const got = server.received[0];
    expect(got.method).toBe('PUT');
    expect(got.url).toBe(
      '/bucket/report.pdf?X-Amz-Credential=AKIA%2Fsecret&X-Amz-Signature=deadbeef&X-Amz-Expires=60',
    );
    expect(got.headers['content-length']).toBe(String(bytes.length));
    expect(got.headers['content-type']).toBe('application/pdf');
    expect(got.headers.authorization).toBeUndefined();
    expect(progress.length).toBeGreaterThan(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(bytes.length);
    expect(traces[0]).toMatchObject({ api: 'upload', method: 'PUT', status: 200 });
    expect(JSON.stringify(traces)).not.toContain('deadbeef');
    expect(JSON.stringify(traces)).not.toContain('AKIA');
  });

  it('delivers the exact bytes', async () => {
    const bytes = randomBytes(64 * 1024 + 3);
    const path = await tempFile(bytes);
    const chunks: Buffer[] = [];
    const target = await server((req, res) => {
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.end());
    });
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    await client.uploads.uploadFile(`${target.url}/o`, path);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('streams: the server sees the first bytes before the source yields the rest', async () => {
    let firstBytesArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstBytesArrived = resolve));
    let received = 0;
    const target = await server((req, res) => {
      req.on('data', (c: Buffer) => {
        received += c.length;
        firstBytesArrived();
      });
      req.on('end', () => res.end());
    });
    // A client that buffered the whole body would wait here forever (until its idle timeout).
    async function* source() {
      yield Buffer.alloc(1024, 1);
      await arrived;
      yield Buffer.alloc(1024, 2);
    }
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    const result = await client.uploads.uploadFile(`${target.url}/o`, source(), {
      size: 2048,
      idleTimeoutMs: 2000,
    });
    expect(result.status).toBe(200);
    expect(received).toBe(2048);
  });

  it('maps an S3 XML error to an ApiError with the S3 code, signature redacted', async () => {
    const path = await tempFile(Buffer.from('hello'));
    const server = await receiver((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>',
      );
    });
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    const error = await client.uploads
      .uploadFile(`${server.url}/o?X-Amz-Signature=deadbeef`, path)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, type: 'SignatureDoesNotMatch', method: 'PUT' });
    expect((error as ApiError).message).toContain('does not match');
    expect((error as ApiError).url).not.toContain('deadbeef');
  });

  it('requires a size for a stream', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    async function* source() {
      yield Buffer.from('x');
    }
    await expect(client.uploads.uploadFile('http://127.0.0.1:9/o', source())).rejects.toThrow(
      /size/,
    );
  });

  it('fails with a NetworkError ETIMEDOUT when the store stops reading', async () => {
    const path = await tempFile(Buffer.from('hello'));
    const server = await receiver(() => undefined);
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    await expect(
      client.uploads.uploadFile(`${server.url}/o`, path, { idleTimeoutMs: 150 }),
    ).rejects.toMatchObject({ name: 'NetworkError', code: 'ETIMEDOUT' });
  });
});
