import { afterEach, describe, expect, it } from 'vitest';
import { createObjectStorage, EmbeddedStorage, S3Storage, type ObjectStorage } from '../../../../emulator/uploads/storage/index.js';

const opened: ObjectStorage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('createObjectStorage', () => {
  it('chooses the embedded store without an S3 endpoint', async () => {
    const storage = createObjectStorage({ baseUrl: () => 'http://127.0.0.1:4010', secret: 's' });
    opened.push(storage);
    expect(storage).toBeInstanceOf(EmbeddedStorage);
    expect(storage.kind).toBe('embedded');
    await storage.init();
    expect(storage.publicUrl('public/f/a.txt')).toBe('http://127.0.0.1:4010/_storage/objects/public/f/a.txt');
  });

  it('chooses S3 when an endpoint is set, with MinIO-style defaults', () => {
    const storage = createObjectStorage({ s3Endpoint: 'http://127.0.0.1:9000/', baseUrl: () => '', secret: 's' });
    opened.push(storage);
    expect(storage).toBeInstanceOf(S3Storage);
    expect(storage.kind).toBe('s3');
    if (storage.kind !== 's3') throw new Error('unreachable');
    expect(storage.bucket).toBe('plugsmith');
    expect(storage.region).toBe('us-east-1');
    expect(storage.publicUrl('public/f/a b.txt')).toBe('http://127.0.0.1:9000/plugsmith/public/f/a%20b.txt');
  });

  it('passes the bucket and region through', () => {
    const storage = createObjectStorage({ s3Endpoint: 'https://s3.example.test', s3Bucket: 'files', s3Region: 'eu-west-3', baseUrl: () => '', secret: 's' });
    opened.push(storage);
    expect(storage.publicUrl('public/x')).toBe('https://s3.example.test/files/public/x');
    expect((storage as S3Storage).region).toBe('eu-west-3');
  });
});
