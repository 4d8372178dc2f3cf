import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { api, emulator } from '../kit/index.js';

// Uploaded objects are served from the management API's origin: they must never run there.
let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

/** Creates a file record, PUTs `content` with `uploadType`, and moves it to COMPLETED. */
async function uploaded(declared: string, uploadType: string, content: string, isPublic: boolean) {
  const generated = await api(emu).post('/api/generate-upload-url', {
    files: [{ fileName: 'picture.png', contentType: declared, isPublic }],
  });
  const { signedUrl, fileRecord } = generated.body.data.files[0];
  const put = await request(signedUrl, {
    method: 'PUT',
    headers: { 'content-type': uploadType },
    body: content,
  });
  expect(put.statusCode).toBe(200);
  await put.body.dump();
  expect(
    (await api(emu).patch('/api/status', { fileId: fileRecord.id, status: 'UPLOADED' })).status,
  ).toBe(200);
  expect(
    (await api(emu).patch('/api/status', { fileId: fileRecord.id, status: 'COMPLETED' })).status,
  ).toBe(200);
  const access = await api(emu).get(`/api/access/${fileRecord.id}`);
  return {
    signedUrl: signedUrl as string,
    fileId: fileRecord.id as string,
    url: access.body.data.url as string,
  };
}

const XSS = '<html><script>fetch("/_emulator/export")</script></html>';

describe('served objects are inert', () => {
  it('a public file declared image/png but uploaded as text/html is served as image/png, nosniff, sandboxed', async () => {
    const { url } = await uploaded('image/png', 'text/html', XSS, true);
    const res = await request(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(String(res.headers['content-security-policy'])).toMatch(/\bsandbox\b/);
    expect(String(res.headers['content-security-policy'])).toMatch(/default-src 'none'/);
    expect(await res.body.text()).toBe(XSS);
  });

  it('a file declared as HTML (or SVG) is served sandboxed and as an attachment', async () => {
    for (const type of ['text/html', 'image/svg+xml']) {
      const { url } = await uploaded(type, type, XSS, true);
      const res = await request(url);
      await res.body.dump();
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(String(res.headers['content-security-policy'])).toMatch(/\bsandbox\b/);
      expect(String(res.headers['content-disposition'])).toMatch(/^attachment;/);
    }
  });

  it('a private file read through its signed URL has the record type and the same headers', async () => {
    const { url } = await uploaded('image/png', 'text/html', XSS, false);
    const res = await request(url);
    await res.body.dump();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(String(res.headers['content-security-policy'])).toMatch(/\bsandbox\b/);
  });
});

describe('signed upload URLs', () => {
  it('a second PUT to the upload URL of a COMPLETED file is refused and the content stays', async () => {
    const { signedUrl, url } = await uploaded('text/plain', 'text/plain', 'original', true);
    const again = await request(signedUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/html' },
      body: XSS,
    });
    expect(again.statusCode).toBe(409);
    expect(((await again.body.json()) as any).error.error).toBe('CONFLICT');
    const res = await request(url);
    expect(await res.body.text()).toBe('original');
  });

  it('a FAILED file may be uploaded again through its URL (a retried upload)', async () => {
    const generated = await api(emu).post('/api/generate-upload-url', {
      files: [{ fileName: 'r.txt', contentType: 'text/plain' }],
    });
    const { signedUrl, fileRecord } = generated.body.data.files[0];
    expect(
      (
        await api(emu).patch('/api/status', {
          fileId: fileRecord.id,
          status: 'FAILED',
          errorMessage: 'network',
        })
      ).status,
    ).toBe(200);
    const put = await request(signedUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'retry',
    });
    await put.body.dump();
    expect(put.statusCode).toBe(200);
  });

  it('an unsigned or badly signed PUT with a bad key is refused for its signature first (403, not 400)', async () => {
    const unsigned = await request(`${emu.url}/_storage/objects/public/../x`, {
      method: 'PUT',
      body: 'x',
    });
    await unsigned.body.dump();
    expect(unsigned.statusCode).toBe(403);
    const forged = await request(
      `${emu.url}/_storage/objects/a//b?expires=9999999999&signature=abc`,
      { method: 'PUT', body: 'x' },
    );
    await forged.body.dump();
    expect(forged.statusCode).toBe(403);
  });
});
