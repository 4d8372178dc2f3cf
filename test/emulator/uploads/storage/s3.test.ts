import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { objectKey } from '../../../../emulator/uploads/storage/keys.js';
import {
  PUBLIC_READ_STATEMENT_ID,
  publicReadStatement,
  S3Storage,
} from '../../../../emulator/uploads/storage/s3.js';
import { StorageError } from '../../../../emulator/uploads/storage/types.js';
import { S3RVER_KEYS, startS3Server, type TestS3Server } from './s3-server.js';
import { deadUrl } from '../../../kit/index.js';

let s3: TestS3Server;
let storage: S3Storage;
const BUCKET = 'uploads';
const anHourAgo = () => new Date(Date.now() - 3600_000);

beforeAll(async () => {
  s3 = await startS3Server();
  storage = new S3Storage({ s3Endpoint: s3.endpoint, ...S3RVER_KEYS, s3Bucket: BUCKET });
  await storage.init();
});

afterAll(async () => {
  await storage?.close();
  await s3?.close();
});

async function put(url: string, body: Buffer, contentType = 'application/octet-stream') {
  const response = await request(url, {
    method: 'PUT',
    body,
    headers: { 'content-type': contentType },
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function get(url: string) {
  const response = await request(url);
  return {
    status: response.statusCode,
    headers: response.headers,
    bytes: Buffer.from(await response.body.arrayBuffer()),
  };
}

async function upload(key: string, body: Buffer, contentType?: string) {
  const result = await put(
    await storage.presignPut(key, { expiresInSeconds: 60 }),
    body,
    contentType,
  );
  expect(result.status, result.text).toBe(200);
}

describe('S3 storage against s3rver', () => {
  it('creates the bucket when absent and grants anonymous reads of public/* in its policy', async () => {
    const fresh = new S3Storage({
      s3Endpoint: s3.endpoint,
      ...S3RVER_KEYS,
      s3Bucket: 'fresh-bucket',
    });
    try {
      const before = await put(
        await fresh.presignPut('private/a', { expiresInSeconds: 60 }),
        Buffer.from('x'),
      );
      expect(before.status).toBe(404);
      expect(before.text).toContain('NoSuchBucket');
      await fresh.init();
      const after = await put(
        await fresh.presignPut('private/a', { expiresInSeconds: 60 }),
        Buffer.from('x'),
      );
      expect(after.status, after.text).toBe(200);
    } finally {
      await fresh.close();
    }
    const policy = JSON.parse(s3.policies.get(BUCKET)!);
    expect(policy.Statement).toEqual([publicReadStatement(BUCKET)]);
    expect(policy.Statement[0].Resource).toEqual([`arn:aws:s3:::${BUCKET}/public/*`]);
  });

  it('keeps the statements a bucket policy already has, and init is idempotent', async () => {
    const foreign = {
      Sid: 'Theirs',
      Effect: 'Allow',
      Principal: { AWS: ['*'] },
      Action: ['s3:GetObject'],
      Resource: ['arn:aws:s3:::shared/docs/*'],
    };
    s3.policies.set('shared', JSON.stringify({ Version: '2012-10-17', Statement: [foreign] }));
    const shared = new S3Storage({ s3Endpoint: s3.endpoint, ...S3RVER_KEYS, s3Bucket: 'shared' });
    try {
      await shared.init();
      await shared.init();
      const statements = JSON.parse(s3.policies.get('shared')!).Statement;
      expect(statements).toEqual([foreign, publicReadStatement('shared')]);
      expect(
        statements.filter((s: { Sid: string }) => s.Sid === PUBLIC_READ_STATEMENT_ID),
      ).toHaveLength(1);
    } finally {
      await shared.close();
    }
  });

  it('uploads through a presigned PUT and serves the same bytes through a presigned GET', async () => {
    const key = objectKey('file_1', 'report.bin', false);
    const body = randomBytes(300 * 1024);
    await upload(key, body, 'application/pdf');
    expect(await storage.stat(key)).toEqual({ size: body.length, contentType: 'application/pdf' });
    const download = await get(await storage.presignGet(key, { expiresInSeconds: 60 }));
    expect(download.status).toBe(200);
    expect(download.bytes.equals(body)).toBe(true);
  });

  it('offers the file name in Content-Disposition when asked', async () => {
    const key = objectKey('file_2', 'notes.txt', false);
    await upload(key, Buffer.from('hello'), 'text/plain');
    // An ASCII name without !'()*: s3rver canonicalises those characters of query values
    // differently from S3 and MinIO, so UTF-8 names (filename*=UTF-8'') are tested on the embedded store.
    const download = await get(
      await storage.presignGet(key, { expiresInSeconds: 60, fileName: 'Quarterly report; v2.txt' }),
    );
    expect(download.status, download.bytes.toString()).toBe(200);
    expect(download.headers['content-disposition']).toBe(
      'attachment; filename="Quarterly report; v2.txt"',
    );
  });

  it('refuses expired URLs, for GET and PUT', async () => {
    const key = objectKey('file_3', 'a.txt', false);
    await upload(key, Buffer.from('kept'));
    const expiredGet = await get(
      await storage.presignGet(key, { expiresInSeconds: 60, issuedAt: anHourAgo() }),
    );
    expect(expiredGet.status).toBe(403);
    expect(expiredGet.bytes.toString()).toContain('Request has expired');
    const expiredPut = await put(
      await storage.presignPut(key, { expiresInSeconds: 60, issuedAt: anHourAgo() }),
      Buffer.from('replaced'),
    );
    expect(expiredPut.status).toBe(403);
    expect((await storage.stat(key))?.size).toBe(4);
  });

  it('refuses a tampered signature and a URL used for another key', async () => {
    const key = objectKey('file_4', 'a.txt', false);
    await upload(key, Buffer.from('secret'));
    const url = new URL(await storage.presignGet(key, { expiresInSeconds: 60 }));
    const signature = url.searchParams.get('X-Amz-Signature')!;
    url.searchParams.set(
      'X-Amz-Signature',
      (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1),
    );
    const tampered = await get(url.toString());
    expect(tampered.status).toBe(403);
    expect(tampered.bytes.toString()).toContain('SignatureDoesNotMatch');

    const other = objectKey('file_5', 'b.txt', false);
    await upload(other, Buffer.from('other'));
    const moved = new URL(await storage.presignGet(key, { expiresInSeconds: 60 }));
    moved.pathname = `/${BUCKET}/${other}`;
    expect((await get(moved.toString())).status).toBe(403);
  });

  it('serves public objects without a signature and refuses private ones', async () => {
    const publicKey = objectKey('file_6', 'logo one.png', true);
    const privateKey = objectKey('file_7', 'logo.png', false);
    const body = randomBytes(2048);
    await upload(publicKey, body, 'image/png');
    await upload(privateKey, body, 'image/png');
    expect(storage.publicUrl(publicKey)).toBe(
      `${s3.endpoint}/${BUCKET}/public/file_6/logo%20one.png`,
    );
    const open = await get(storage.publicUrl(publicKey));
    expect(open.status).toBe(200);
    expect(open.bytes.equals(body)).toBe(true);
    expect((await get(storage.publicUrl(privateKey))).status).toBe(403);
    const unsignedPut = await put(storage.publicUrl(publicKey), Buffer.from('vandal'));
    expect(unsignedPut.status).toBe(403);
  });

  it('deletes objects; stat and delete of a missing key are quiet', async () => {
    const key = objectKey('file_8', 'gone.txt', false);
    await upload(key, Buffer.from('bye'));
    expect((await storage.stat(key))?.size).toBe(3);
    await storage.delete(key);
    expect(await storage.stat(key)).toBeNull();
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('rejects bad keys and validity periods before signing', async () => {
    await expect(storage.presignPut('../escape', { expiresInSeconds: 60 })).rejects.toThrow(
      /Invalid object key/,
    );
    await expect(storage.presignGet('/absolute', { expiresInSeconds: 60 })).rejects.toThrow(
      /Invalid object key/,
    );
    await expect(storage.presignGet('ok', { expiresInSeconds: 0 })).rejects.toThrow(RangeError);
    await expect(storage.presignGet('ok', { expiresInSeconds: 8 * 24 * 3600 })).rejects.toThrow(
      RangeError,
    );
  });

  it('accepts a server without bucket policies (plain s3rver)', async () => {
    s3.bucketPolicies = false;
    const plain = new S3Storage({ s3Endpoint: s3.endpoint, ...S3RVER_KEYS, s3Bucket: 'plain' });
    try {
      await plain.init();
      expect(await plain.stat('public/x')).toBeNull();
    } finally {
      s3.bucketPolicies = true;
      await plain.close();
    }
  });
});

describe('S3 storage configuration errors', () => {
  it('refuses an endpoint that is not a bare http(s) origin', () => {
    const make = (endpoint: string) => () =>
      new S3Storage({ s3Endpoint: endpoint, ...S3RVER_KEYS, s3Bucket: 'some-bucket' });
    expect(make('127.0.0.1:9000')).toThrow(StorageError);
    expect(make('ftp://127.0.0.1:9000')).toThrow(/http/);
    expect(make('http://127.0.0.1:9000/prefix')).toThrow(/bare origin/);
  });

  it('explains an unreachable server at init', async () => {
    const unreachable = new S3Storage({
      s3Endpoint: await deadUrl(),
      ...S3RVER_KEYS,
      s3Bucket: 'some-bucket',
    });
    try {
      const error = await unreachable.init().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StorageError);
      expect((error as Error).message).toMatch(
        /Cannot use bucket "some-bucket" at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
      );
    } finally {
      await unreachable.close();
    }
  });

  it('explains wrong credentials at init', async () => {
    const wrong = new S3Storage({
      s3Endpoint: s3.endpoint,
      s3AccessKey: 'NOPE',
      s3SecretKey: 'NOPE',
      s3Bucket: 'other-bucket',
    });
    try {
      await expect(wrong.init()).rejects.toThrow(
        /Cannot use bucket "other-bucket".*(AccessDenied|InvalidAccessKeyId)/,
      );
    } finally {
      await wrong.close();
    }
  });
});
