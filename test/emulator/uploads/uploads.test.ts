import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type Emulator } from '../../../emulator/index.js';
import { canMove, FILE_STATUSES } from '../../../emulator/uploads/rules.js';
import { startS3Server, S3RVER_KEYS, type TestS3Server } from './storage/s3-server.js';
import { api as apiOf, emulator, type Api } from '../../kit/index.js';

type Json = {
  ok: boolean;
  data?: any;
  meta?: Record<string, unknown>;
  error?: { message: string; error: string; details?: Array<{ path: string[] }> };
};

async function put(url: string, body: string | Buffer, contentType = 'application/octet-stream') {
  const res = await request(url, { method: 'PUT', body, headers: { 'content-type': contentType } });
  await res.body.dump();
  return res.statusCode;
}

async function get(url: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await request(url);
  return { status: res.statusCode, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

/** The whole upload path, run once with the embedded store and once with S3 (s3rver). */
function uploadSuite(name: string, start: () => Promise<Emulator>, stop: () => Promise<void>) {
  describe(`uploads on the ${name} store`, () => {
    let emu: Emulator;
    let api: Api;
    beforeAll(async () => {
      emu = await start();
      api = apiOf(emu);
    });
    afterAll(async () => {
      // Closed here, before its storage stops (start() is the embedded or the S3 one).
      await emu.close();
      await stop();
    });

    async function generate(files: unknown[], extra: Record<string, unknown> = {}) {
      return api.post('/api/generate-upload-url', {
        files,
        parentId: 'org_dev',
        parentType: 'ORG',
        ...extra,
      });
    }

    test('a real file: signed PUT, UPLOADED, listed, read back byte for byte through the access URL', async () => {
      const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
      const gen = await generate(
        [
          {
            fileName: 'data.bin',
            contentType: 'application/octet-stream',
            fileSize: content.length,
          },
        ],
        { folder: 'reports/2026' },
      );
      expect(gen.status).toBe(201);
      const { signedUrl, fileRecord } = gen.body.data.files[0];
      expect(fileRecord).toMatchObject({
        fileName: 'data.bin',
        fileSize: content.length,
        isPublic: false,
        status: null,
        folder: 'reports/2026',
        parentId: 'org_dev',
        parentType: 'ORG',
      });
      expect(fileRecord.storageKey).toBeUndefined();
      expect(await put(signedUrl, content)).toBe(200);
      const uploaded = await api.patch('/api/status', {
        fileId: fileRecord.id,
        status: 'UPLOADED',
      });
      expect(uploaded.status).toBe(200);
      expect(uploaded.body.data.status).toBe('UPLOADED');
      const listed = await api.get('/api?parentId=org_dev&parentType=ORG');
      expect(listed.body.data.map((f: { id: string }) => f.id)).toContain(fileRecord.id);
      expect(listed.body.meta).toHaveProperty('pagination');
      const access = await api.get(`/api/access/${fileRecord.id}?expiresIn=60`);
      expect(access.body.data.isPublic).toBe(false);
      const read = await get(access.body.data.url);
      expect(read.status).toBe(200);
      expect(read.bytes.equals(content)).toBe(true);
    });

    test('GET /api/generate-upload-url reads its JSON body, as the spec shows', async () => {
      const res = await request(`${emu.url}/api/generate-upload-url`, {
        method: 'GET',
        headers: { authorization: emu.token!, 'content-type': 'application/json' },
        body: JSON.stringify({
          files: [{ fileName: 'get.txt' }],
          parentId: 'org_dev',
          parentType: 'ORG',
        }),
      });
      expect(res.statusCode).toBe(200);
      const body = (await res.body.json()) as Json;
      expect(body.data.files[0].signedUrl).toMatch(/^http/);
      const bad = await request(`${emu.url}/api/generate-upload-url`, {
        method: 'GET',
        headers: { authorization: emu.token!, 'content-type': 'application/json' },
        body: JSON.stringify({ files: [] }),
      });
      expect(bad.statusCode).toBe(400);
      await bad.body.dump();
    });

    test('private files need a signature, public files do not', async () => {
      const gen = await generate([
        { fileName: 'private.txt' },
        { fileName: 'public.txt', isPublic: true },
      ]);
      const [priv, pub] = gen.body.data.files;
      expect(await put(priv.signedUrl, 'secret', 'text/plain')).toBe(200);
      expect(await put(pub.signedUrl, 'hello world', 'text/plain')).toBe(200);
      for (const f of [priv, pub])
        expect(
          (await api.patch('/api/status', { fileId: f.fileRecord.id, status: 'UPLOADED' })).status,
        ).toBe(200);
      const pubAccess = (await api.get(`/api/access/${pub.fileRecord.id}`)).body.data;
      expect(pubAccess).toMatchObject({ isPublic: true, expiresAt: null });
      expect((await get(pubAccess.url)).bytes.toString()).toBe('hello world');
      const privAccess = (await api.get(`/api/access/${priv.fileRecord.id}`)).body.data;
      const unsigned = privAccess.url.split('?')[0];
      expect((await get(unsigned)).status).toBe(403);
      expect((await get(privAccess.url)).bytes.toString()).toBe('secret');
    });

    test('a tampered signature and an expired URL are refused', async () => {
      const gen = await generate([{ fileName: 'tamper.txt' }]);
      const f = gen.body.data.files[0];
      expect(await put(f.signedUrl, 'x')).toBe(200);
      await api.patch('/api/status', { fileId: f.fileRecord.id, status: 'UPLOADED' });
      const url = new URL((await api.get(`/api/access/${f.fileRecord.id}`)).body.data.url);
      const sigParam = [...url.searchParams.keys()].find((k) => /signature/i.test(k))!;
      const sig = url.searchParams.get(sigParam)!;
      url.searchParams.set(sigParam, (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
      expect((await get(url.toString())).status).toBe(403);
      const short = (await api.get(`/api/access/${f.fileRecord.id}?expiresIn=1`)).body.data;
      expect(Date.parse(short.expiresAt) - Date.now()).toBeLessThanOrEqual(1000);
      // Only time expires a URL (1 s is the least expiresIn, and no clock can be given): both stores count whole
      // seconds, so the URL is refused once the second after its expiresAt has begun.
      const expired = (Math.floor(Date.parse(short.expiresAt) / 1000) + 1) * 1000;
      await new Promise((r) => setTimeout(r, expired - Date.now() + 10));
      expect((await get(short.url)).status).toBe(403);
    });

    test('an object bigger than its declared size turns the file FAILED and is deleted', async () => {
      const gen = await generate([{ fileName: 'small.txt', fileSize: 3 }]);
      const f = gen.body.data.files[0];
      // The embedded store refuses the oversized body while streaming; S3 cannot, so the status check must.
      const status = await put(f.signedUrl, 'more than three bytes');
      if (status === 200) {
        const res = await api.patch('/api/status', {
          fileId: f.fileRecord.id,
          status: 'UPLOADED',
        });
        expect(res.body.data.status).toBe('FAILED');
        expect(res.body.data.errorMessage).toContain('declared fileSize 3');
        expect((await api.get(`/api/access/${f.fileRecord.id}`)).status).toBe(409);
      } else {
        expect(status).toBe(413);
        expect(
          (await api.patch('/api/status', { fileId: f.fileRecord.id, status: 'UPLOADED' })).status,
        ).toBe(409);
      }
    });

    test('UPLOADED before the object exists is a 409', async () => {
      const f = (await generate([{ fileName: 'never.txt' }])).body.data.files[0];
      const res = await api.patch('/api/status', {
        fileId: f.fileRecord.id,
        status: 'UPLOADED',
      });
      expect(res.status).toBe(409);
      expect(res.body.error!.message).toContain('PUT it to its signedUrl');
    });
  });
}

let s3: TestS3Server;
uploadSuite(
  'embedded',
  () => startEmulator(),
  async () => {},
);
uploadSuite(
  'S3 (s3rver)',
  async () => {
    s3 = await startS3Server();
    return startEmulator({
      storage: { s3Endpoint: s3.endpoint, ...S3RVER_KEYS, s3Bucket: 'uploads' },
    });
  },
  () => s3.close(),
);

describe('upload limits and rules', () => {
  let emu: Emulator;
  let api: Api;
  beforeAll(async () => {
    emu = await emulator();
    api = apiOf(emu);
  });

  const base = { parentId: 'org_dev', parentType: 'ORG' };
  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['no files', { files: [] }, 'files'],
    [
      '11 files',
      { files: Array.from({ length: 11 }, (_, i) => ({ fileName: `f${i}.txt` })) },
      'files',
    ],
    ['an empty name', { files: [{ fileName: '' }] }, 'files.0.fileName'],
    ['a 256-character name', { files: [{ fileName: 'a'.repeat(256) }] }, 'files.0.fileName'],
    ['a slash in the name', { files: [{ fileName: 'a/b.txt' }] }, 'files.0.fileName'],
    ['a colon in the name', { files: [{ fileName: 'c:.txt' }] }, 'files.0.fileName'],
    ['a star in the name', { files: [{ fileName: '*.txt' }] }, 'files.0.fileName'],
    ['a control character', { files: [{ fileName: 'a\u0007.txt' }] }, 'files.0.fileName'],
    ['".."', { files: [{ fileName: '..' }] }, 'files.0.fileName'],
    [
      'a declared size over 100 MB',
      { files: [{ fileName: 'big.bin', fileSize: 100 * 1024 * 1024 + 1 }] },
      'files.0.fileSize',
    ],
    ['a negative size', { files: [{ fileName: 'neg.bin', fileSize: -1 }] }, 'files.0.fileSize'],
    [
      'a folder over 100 characters',
      { files: [{ fileName: 'a.txt' }], folder: 'f'.repeat(101) },
      'folder',
    ],
    ['a folder with ..', { files: [{ fileName: 'a.txt' }], folder: 'a/../b' }, 'folder'],
    ['a folder with //', { files: [{ fileName: 'a.txt' }], folder: 'a//b' }, 'folder'],
    ['an unknown parentType', { files: [{ fileName: 'a.txt' }], parentType: 'TEAM' }, 'parentType'],
  ];
  test.each(bad)('%s is a 400 with details', async (_name, body, path) => {
    const res = await api.post('/api/generate-upload-url', { ...base, ...body });
    expect(res.status).toBe(400);
    expect(res.body.error!.error).toBe('VALIDATION_ERROR');
    expect(res.body.error!.details!.map((d: { path: string[] }) => d.path.join('.'))).toContain(
      path,
    );
  });

  test('10 files and a 255-character name are fine', async () => {
    const res = await api.post('/api/generate-upload-url', {
      ...base,
      files: [
        { fileName: 'n'.repeat(255) },
        ...Array.from({ length: 9 }, (_, i) => ({ fileName: `f${i}.txt` })),
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.files).toHaveLength(10);
  });

  test('parentId and parentType go together; an unknown parent is a 404; a parent of another org is refused', async () => {
    expect(
      (
        await api.post('/api/generate-upload-url', {
          files: [{ fileName: 'a' }],
          parentId: 'org_dev',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await api.post('/api/generate-upload-url', {
          files: [{ fileName: 'a' }],
          parentType: 'ORG',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await api.post('/api/generate-upload-url', {
          files: [{ fileName: 'a' }],
          parentId: 'char_missing',
          parentType: 'CHARACTER',
        })
      ).status,
    ).toBe(404);
    const character = await api.post('/api/generate-upload-url', {
      files: [{ fileName: 'a' }],
      parentId: 'char_nova',
      parentType: 'CHARACTER',
    });
    expect(character.status).toBe(201);
    expect(character.body.data.files[0].fileRecord.orgId).toBe('org_dev');
  });

  test('the owning org follows the one rule of app installs too: an unknown orgId is a 404, a parent of another org names its org', async () => {
    const unknown = await api.post('/api/generate-upload-url', {
      files: [{ fileName: 'a' }],
      orgId: 'org_nope',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error!.message).toMatch(/org_nope/);
    const clash = await api.post('/api/generate-upload-url', {
      files: [{ fileName: 'a' }],
      parentId: 'char_nova',
      parentType: 'CHARACTER',
      orgId: 'org_other',
    });
    expect(clash.status).toBe(400);
    expect(clash.body.error!.message).toMatch(/character char_nova belongs to org org_dev/);
    expect(clash.body.error!.details!.map((d: { path: string[] }) => d.path.join('.'))).toEqual([
      'orgId',
    ]);
  });

  const statuses = [null, ...FILE_STATUSES] as const;
  const pairs = statuses.flatMap((from) => FILE_STATUSES.map((to) => [from, to] as const));
  test.each(pairs)('status %s -> %s follows the status machine', async (from, to) => {
    const f = (
      await api.post('/api/generate-upload-url', { ...base, files: [{ fileName: 's.txt' }] })
    ).body.data.files[0];
    const id = f.fileRecord.id as string;
    await put(f.signedUrl, 'content');
    // Walk to `from` along allowed moves.
    const path: Record<string, string[]> = {
      null: [],
      UPLOADED: ['UPLOADED'],
      FAILED: ['FAILED'],
      PROCESSING: ['UPLOADED', 'PROCESSING'],
      COMPLETED: ['UPLOADED', 'COMPLETED'],
    };
    for (const step of path[String(from)]) {
      expect(
        (
          await api.patch('/api/status', {
            fileId: id,
            status: step,
            errorMessage: step === 'FAILED' ? 'x' : undefined,
          })
        ).status,
      ).toBe(200);
    }
    const res = await api.patch('/api/status', {
      fileId: id,
      status: to,
      errorMessage: to === 'FAILED' ? 'broken' : undefined,
    });
    expect(res.status).toBe(canMove(from, to) ? 200 : 409);
    if (res.status === 200) expect(res.body.data.status).toBe(to);
  });

  test('an actual body over 100 MB is cut off while streaming, and the file never becomes UPLOADED', async () => {
    const f = (
      await api.post('/api/generate-upload-url', { ...base, files: [{ fileName: 'huge.bin' }] })
    ).body.data.files[0];
    const chunk = Buffer.alloc(1024 * 1024, 7);
    async function* body() {
      for (let i = 0; i < 101; i++) yield chunk;
    }
    const res = await request(f.signedUrl, { method: 'PUT', body: Readable.from(body()) }).catch(
      (error: Error) => ({ statusCode: 0, error }),
    );
    if ('body' in res) await res.body.dump();
    expect([0, 413]).toContain(res.statusCode);
    expect(
      (await api.patch('/api/status', { fileId: f.fileRecord.id, status: 'UPLOADED' })).status,
    ).toBe(409);
  });

  test('FAILED needs an errorMessage', async () => {
    const f = (
      await api.post('/api/generate-upload-url', { ...base, files: [{ fileName: 'e.txt' }] })
    ).body.data.files[0];
    const res = await api.patch('/api/status', { fileId: f.fileRecord.id, status: 'FAILED' });
    expect(res.status).toBe(400);
    expect(res.body.error!.details![0].path).toEqual(['errorMessage']);
  });

  test('expiresIn is checked', async () => {
    expect((await api.get('/api/access/file_x?expiresIn=abc')).status).toBe(400);
    expect((await api.get('/api/access/file_x?expiresIn=0')).status).toBe(400);
  });
});
