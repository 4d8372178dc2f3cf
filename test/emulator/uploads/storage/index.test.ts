import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedStorage } from '../../../../emulator/uploads/storage/embedded.js';
import { openObjectStorage } from '../../../../emulator/uploads/storage/open.js';
import { S3Storage } from '../../../../emulator/uploads/storage/s3.js';
import type { ObjectStorage } from '../../../../emulator/uploads/storage/types.js';

const opened: ObjectStorage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('openObjectStorage', () => {
  it('chooses the embedded store without an S3 endpoint', async () => {
    const storage = await openObjectStorage({
      baseUrl: () => 'http://127.0.0.1:4010',
      secret: 'signing-key-of-the-test-1234567',
    });
    opened.push(storage);
    expect(storage).toBeInstanceOf(EmbeddedStorage);
    expect(storage.kind).toBe('embedded');
    await storage.init();
    expect(storage.publicUrl('public/f/a.txt')).toBe(
      'http://127.0.0.1:4010/_storage/objects/public/f/a.txt',
    );
  });

  it('chooses S3 when an endpoint is set, with MinIO-style defaults', async () => {
    const storage = await openObjectStorage({
      s3Endpoint: 'http://127.0.0.1:9000/',
      baseUrl: () => '',
      secret: 'signing-key-of-the-test-1234567',
    });
    opened.push(storage);
    expect(storage).toBeInstanceOf(S3Storage);
    expect(storage.kind).toBe('s3');
    expect((storage as S3Storage).bucket).toBe('plugsmith');
    expect((storage as S3Storage).region).toBe('us-east-1');
    expect(storage.publicUrl('public/f/a b.txt')).toBe(
      'http://127.0.0.1:9000/plugsmith/public/f/a%20b.txt',
    );
  });

  it('passes the bucket and region through', async () => {
    const storage = await openObjectStorage({
      s3Endpoint: 'https://s3.example.test',
      s3Bucket: 'files',
      s3Region: 'eu-west-3',
      baseUrl: () => '',
      secret: 'signing-key-of-the-test-1234567',
    });
    opened.push(storage);
    expect(storage.publicUrl('public/x')).toBe('https://s3.example.test/files/public/x');
    expect((storage as S3Storage).region).toBe('eu-west-3');
  });
});
