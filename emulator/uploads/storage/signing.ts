import { createHmac, timingSafeEqual } from 'node:crypto';

/** What an embedded-store URL grants: one method on one key until a time, with its limits. */
export interface Grant {
  method: 'GET' | 'PUT';
  key: string;
  /** Unix time in seconds after which the URL is refused. */
  expires: number;
  /** PUT only: largest body accepted. */
  maxBytes?: number;
  /** GET only: name for Content-Disposition. */
  fileName?: string;
}

/** The query parameters of a signed URL, in the order they are written. */
export const QUERY = {
  expires: 'expires',
  maxBytes: 'max',
  fileName: 'filename',
  signature: 'signature',
} as const;

/** The HMAC-SHA256 of a grant, base64url; every field is covered, so none can be changed. */
export function signGrant(secret: string | Buffer, grant: Grant): string {
  // A JSON array keeps fields apart unambiguously, whatever characters a key or name holds.
  const text = JSON.stringify([
    grant.method,
    grant.key,
    grant.expires,
    grant.maxBytes ?? null,
    grant.fileName ?? null,
  ]);
  return createHmac('sha256', secret).update(text).digest('base64url');
}

/** The query string of a signed URL for a grant. */
export function signedQuery(secret: string | Buffer, grant: Grant): string {
  const params = new URLSearchParams();
  params.set(QUERY.expires, String(grant.expires));
  if (grant.maxBytes !== undefined) params.set(QUERY.maxBytes, String(grant.maxBytes));
  if (grant.fileName !== undefined) params.set(QUERY.fileName, grant.fileName);
  params.set(QUERY.signature, signGrant(secret, grant));
  return params.toString();
}

/** Outcome of checking a request's query against the secret. */
export type Verdict =
  | { kind: 'unsigned' }
  | { kind: 'valid'; grant: Grant }
  | { kind: 'refused'; reason: string };

/** Checks the signature query of a request for `method` on `key` at time `nowSeconds`. */
export function verifyQuery(
  secret: string | Buffer,
  method: 'GET' | 'PUT',
  key: string,
  query: Record<string, unknown>,
  nowSeconds: number,
): Verdict {
  const signature = query[QUERY.signature];
  if (signature === undefined) return { kind: 'unsigned' };
  const expiresText = query[QUERY.expires];
  const maxText = query[QUERY.maxBytes];
  const fileName = query[QUERY.fileName];
  const malformed =
    typeof signature !== 'string' ||
    typeof expiresText !== 'string' ||
    !/^\d{1,12}$/.test(expiresText) ||
    (maxText !== undefined && (typeof maxText !== 'string' || !/^\d{1,15}$/.test(maxText))) ||
    (fileName !== undefined && typeof fileName !== 'string');
  if (malformed) return { kind: 'refused', reason: 'The URL signature is malformed' };
  const grant: Grant = { method, key, expires: Number(expiresText) };
  if (maxText !== undefined) grant.maxBytes = Number(maxText);
  if (fileName !== undefined) grant.fileName = fileName;
  const expected = Buffer.from(signGrant(secret, grant));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { kind: 'refused', reason: 'The URL signature does not match' };
  }
  if (nowSeconds > grant.expires) return { kind: 'refused', reason: 'The URL has expired' };
  return { kind: 'valid', grant };
}
