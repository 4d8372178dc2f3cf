import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';

/** The S3rver test account (built into s3rver). */
export const S3RVER_KEYS = { s3AccessKey: 'S3RVER', s3SecretKey: 'S3RVER' } as const;

/** A running s3rver for a test file. */
export interface TestS3Server {
  endpoint: string;
  /** Bucket policies stored through PUT ?policy, by bucket. */
  policies: Map<string, string>;
  /** When false, PUT/GET ?policy answer NotImplemented, as plain s3rver does. */
  bucketPolicies: boolean;
  close(): Promise<void>;
}

/**
 * Starts @20minutes/s3rver in-process on a free port with a temporary directory.
 *
 * s3rver checks V4 signatures and expiry but has no access control: it serves every object to
 * anonymous requests and answers NotImplemented to bucket policies. To test that private
 * objects stay private, a small gate in front of it stores bucket policies and, like S3 and
 * MinIO, lets an unsigned request through only for a GET/HEAD that a policy statement
 * allows to everyone ("*" principal, s3:GetObject, matching Resource).
 */
export async function startS3Server(): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'plugsmith-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
  });
  const state: TestS3Server = {
    endpoint: '',
    policies: new Map(),
    bucketPolicies: true,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
  server.middleware.unshift(async (ctx, next) => {
    const [bucket = '', ...rest] = String(ctx.path).slice(1).split('/');
    const key = rest.map(decodeURIComponent).join('/');
    if (bucket && !key && 'policy' in ctx.query) {
      if (!state.bucketPolicies)
        return s3Error(
          ctx,
          501,
          'NotImplemented',
          'A parameter you provided implies functionality that is not implemented',
        );
      if (ctx.method === 'PUT') {
        state.policies.set(bucket, await readBody(ctx.req));
        ctx.status = 204;
        return;
      }
      if (ctx.method === 'GET') {
        const policy = state.policies.get(bucket);
        if (policy === undefined)
          return s3Error(ctx, 404, 'NoSuchBucketPolicy', 'The bucket policy does not exist');
        ctx.type = 'application/json';
        ctx.body = policy;
        return;
      }
    }
    const signed =
      'authorization' in ctx.headers || 'X-Amz-Algorithm' in ctx.query || 'Signature' in ctx.query;
    if (state.bucketPolicies && !signed && bucket) {
      const readable =
        key !== '' &&
        (ctx.method === 'GET' || ctx.method === 'HEAD') &&
        allowsAnonymousRead(state.policies.get(bucket), bucket, key);
      if (!readable) return s3Error(ctx, 403, 'AccessDenied', 'Access Denied');
    }
    await next();
  });
  const address = await server.run();
  state.endpoint = `http://127.0.0.1:${address.port}`;
  return state;
}

function allowsAnonymousRead(policyText: string | undefined, bucket: string, key: string): boolean {
  if (!policyText) return false;
  const policy = JSON.parse(policyText) as { Statement?: Array<Record<string, unknown>> };
  const resource = `arn:aws:s3:::${bucket}/${key}`;
  return (policy.Statement ?? []).some((statement) => {
    const principal = statement.Principal as unknown;
    const everyone =
      principal === '*' ||
      (typeof principal === 'object' &&
        principal !== null &&
        [(principal as { AWS?: unknown }).AWS].flat().includes('*'));
    const actions = [statement.Action].flat();
    const resources = [statement.Resource].flat() as string[];
    return (
      statement.Effect === 'Allow' &&
      everyone &&
      (actions.includes('s3:GetObject') || actions.includes('s3:*')) &&
      resources.some((pattern) => globToRegExp(pattern).test(resource))
    );
  });
}

function globToRegExp(pattern: string): RegExp {
  return new RegExp(
    '^' +
      pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
  );
}

function s3Error(
  ctx: { status: number; type: string; body: unknown },
  status: number,
  code: string,
  message: string,
) {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

async function readBody(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
