import http from 'node:http';
import https from 'node:https';
import { Client } from 'minio';
import { assertValidKey, attachment, encodeKeyPath, PUBLIC_PREFIX } from './keys.js';
import {
  checkExpiresIn,
  StorageError,
  type ObjectInfo,
  type ObjectStorage,
  type PresignGetOptions,
  type PresignPutOptions,
  type S3Settings,
} from './types.js';

/** Sid of the bucket policy statement that makes `public/*` readable by anyone. */
export const PUBLIC_READ_STATEMENT_ID = 'PlugsmithPublicRead';

interface PolicyDocument {
  Version?: string;
  Statement?: Array<Record<string, unknown>>;
}

/**
 * S3-compatible storage through `minio`, path-style. `init()` adds a public-read statement for `public/*` to the bucket
 * policy, keeping the others; servers without policies (s3rver: NotImplemented) serve every object anonymously anyway.
 */
export class S3Storage implements ObjectStorage {
  readonly kind = 's3' as const;
  readonly bucket: string;
  readonly region: string;
  private readonly client: Client;
  private readonly agent: http.Agent;
  private readonly base: string;

  constructor(settings: S3Settings & { s3Endpoint: string }) {
    const url = parseEndpoint(settings.s3Endpoint);
    const useSSL = url.protocol === 'https:';
    this.bucket = settings.s3Bucket ?? 'plugsmith';
    // Given explicitly so that signing never asks the server.
    this.region = settings.s3Region ?? 'us-east-1';
    this.base = url.origin;
    // An agent of our own, so close() can drop its keep-alive sockets.
    this.agent = useSSL
      ? new https.Agent({ keepAlive: true })
      : new http.Agent({ keepAlive: true });
    this.client = new Client({
      endPoint: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: settings.s3AccessKey ?? 'minioadmin',
      secretKey: settings.s3SecretKey ?? 'minioadmin',
      region: this.region,
      pathStyle: true,
      transportAgent: this.agent,
    });
  }

  async init(): Promise<void> {
    try {
      if (!(await this.client.bucketExists(this.bucket))) {
        await this.client.makeBucket(this.bucket, this.region).catch((error: unknown) => {
          // Another emulator on the same server may have created it in the meantime.
          if (codeOf(error) !== 'BucketAlreadyOwnedByYou') throw error;
        });
      }
    } catch (error) {
      throw new StorageError(
        `Cannot use bucket "${this.bucket}" at ${this.base}: ${messageOf(error)}. ` +
          'Check that the S3 server runs there and that the access key may create and read the bucket.',
        { cause: error },
      );
    }
    await this.allowPublicReads();
  }

  async presignPut(key: string, options: PresignPutOptions): Promise<string> {
    assertValidKey(key);
    return this.client.presignedUrl(
      'PUT',
      this.bucket,
      key,
      checkExpiresIn(options.expiresInSeconds),
      {},
      options.issuedAt ?? new Date(),
    );
  }

  async presignGet(key: string, options: PresignGetOptions): Promise<string> {
    assertValidKey(key);
    const params: Record<string, string> = {};
    if (options.fileName !== undefined)
      params['response-content-disposition'] = attachment(options.fileName);
    if (options.contentType !== undefined) params['response-content-type'] = options.contentType;
    return this.client.presignedUrl(
      'GET',
      this.bucket,
      key,
      checkExpiresIn(options.expiresInSeconds),
      params,
      options.issuedAt ?? new Date(),
    );
  }

  publicUrl(key: string): string {
    assertValidKey(key);
    return `${this.base}/${encodeURIComponent(this.bucket)}/${encodeKeyPath(key)}`;
  }

  /** `stat` then `record`: PUTs through presigned URLs go to the S3 server, out of the emulator's reach. */
  async settle<T>(key: string, record: (info: ObjectInfo | null) => Promise<T>): Promise<T> {
    return record(await this.stat(key));
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    assertValidKey(key);
    try {
      const stat = await this.client.statObject(this.bucket, key);
      const contentType = stat.metaData?.['content-type'] as string | undefined;
      return contentType ? { size: stat.size, contentType } : { size: stat.size };
    } catch (error) {
      if (['NotFound', 'NoSuchKey'].includes(codeOf(error) ?? '')) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    try {
      await this.client.removeObject(this.bucket, key);
    } catch (error) {
      if (!['NotFound', 'NoSuchKey'].includes(codeOf(error) ?? '')) throw error;
    }
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  /** Adds (or refreshes) the public-read statement for `public/*` in the bucket policy. */
  private async allowPublicReads(): Promise<void> {
    let current: PolicyDocument | null = null;
    try {
      const text = await this.client.getBucketPolicy(this.bucket);
      current = text ? (JSON.parse(text) as PolicyDocument) : null;
    } catch (error) {
      const code = codeOf(error);
      if (code === 'NotImplemented') return;
      if (code !== 'NoSuchBucketPolicy') throw this.policyError(error);
    }
    const ours = publicReadStatement(this.bucket);
    const others = (current?.Statement ?? []).filter((s) => s.Sid !== PUBLIC_READ_STATEMENT_ID);
    const existing = current?.Statement?.find((s) => s.Sid === PUBLIC_READ_STATEMENT_ID);
    if (existing && JSON.stringify(existing) === JSON.stringify(ours)) return;
    const policy = { Version: current?.Version ?? '2012-10-17', Statement: [...others, ours] };
    try {
      await this.client.setBucketPolicy(this.bucket, JSON.stringify(policy));
    } catch (error) {
      if (codeOf(error) === 'NotImplemented') return;
      throw this.policyError(error);
    }
  }

  private policyError(error: unknown): StorageError {
    return new StorageError(
      `Cannot set the public-read policy on "${this.bucket}/${PUBLIC_PREFIX}*" at ${this.base}: ${messageOf(error)}. ` +
        'Public files need it: let the access key manage bucket policies (on AWS, also allow public bucket policies).',
      { cause: error },
    );
  }
}

/** The bucket policy statement that lets anyone read `public/*` (MinIO's and AWS's format). */
export function publicReadStatement(bucket: string): Record<string, unknown> {
  return {
    Sid: PUBLIC_READ_STATEMENT_ID,
    Effect: 'Allow',
    Principal: { AWS: ['*'] },
    Action: ['s3:GetObject'],
    Resource: [`arn:aws:s3:::${bucket}/${PUBLIC_PREFIX}*`],
  };
}

function parseEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new StorageError(
      `The S3 endpoint "${endpoint}" is not a URL; give one like http://127.0.0.1:9000`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StorageError(`The S3 endpoint "${endpoint}" must start with http:// or https://`);
  }
  if (url.pathname !== '/' || url.search || url.username) {
    throw new StorageError(
      `The S3 endpoint "${endpoint}" must be a bare origin such as http://127.0.0.1:9000 (no path, query or credentials)`,
    );
  }
  return url;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
