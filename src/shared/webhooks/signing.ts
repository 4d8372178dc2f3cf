import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { headerValues, type WebhookRequestHeaders } from './headers.js';

// Standard Webhooks (https://www.standardwebhooks.com): the signed content is
// `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 keyed by the base64-decoded secret,
// sent as `v1,<base64>`; several space-separated signatures allow key rotation.

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32; // RFC 2104: a key as long as the hash output
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DEFAULT_TOLERANCE_SECONDS = 300;

/** A webhook delivery's raw body, exactly as sent. */
export type WebhookBody = string | Uint8Array;

/** Creates a fresh secret: `whsec_` followed by base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key inside a secret; the `whsec_` prefix is optional, the rest must be base64. */
export function decodeWebhookSecret(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Node's base64 decoder skips bad characters silently, which would hide a mangled secret.
  if (encoded.length % 4 === 1 || !BASE64.test(encoded)) {
    throw new TypeError(
      'invalid webhook secret: expected "whsec_" followed by base64 (the plugin\'s webhookSecret)',
    );
  }
  return Buffer.from(encoded, 'base64');
}

/** What is signed: the delivery's id, its Unix time in seconds, the raw body, and the secret(s). */
export interface SignWebhookInput {
  id: string;
  /** Unix time in whole seconds. */
  timestamp: number;
  body: WebhookBody;
  /** Several secrets give several signatures, for key rotation. */
  secret: string | readonly string[];
}

/** The `webhook-signature` header value: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook({ id, timestamp, body, secret }: SignWebhookInput): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(`webhook timestamp must be whole seconds since 1970, got ${timestamp}`);
  }
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('no webhook secret to sign with');
  return secrets
    .map((one) => `v1,${digest(decodeWebhookSecret(one), id, String(timestamp), body)}`)
    .join(' ');
}

/** The headers of one signed delivery. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
  [name: string]: string;
}

/** Headers for delivering `body`; the timestamp defaults to now (a retry must be signed anew). */
export function webhookHeaders(
  input: Omit<SignWebhookInput, 'timestamp'> & { timestamp?: number },
): WebhookHeaders {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook({ ...input, timestamp }),
    'content-type': 'application/json',
  };
}

/** How strictly `verifyWebhook` checks the timestamp. */
export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, either way; default 300 s. */
  toleranceSeconds?: number;
  /** The current time, for tests and replays. */
  now?: Date;
}

/** Checks a delivery's signature and timestamp, then returns its parsed event; throws WebhookVerificationError. */
export function verifyWebhook(
  rawBody: WebhookBody,
  headers: WebhookRequestHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const keys = (typeof secret === 'string' ? [secret] : secret).map(decodeWebhookSecret);
  if (keys.length === 0) throw new TypeError('no webhook secret to verify with');
  const id = singleHeader(headers, 'webhook-id');
  const timestampText = singleHeader(headers, 'webhook-timestamp');
  const signatureText = headerValues(headers, 'webhook-signature').join(' ');
  if (signatureText.trim() === '') missing('webhook-signature');

  checkTimestamp(timestampText, options);

  const candidates = parseSignatures(signatureText);
  const matched = keys.some((key) => {
    const expected = Buffer.from(digest(key, id, timestampText, rawBody));
    // Compare every candidate without stopping early, so timing says nothing about which matched.
    return candidates.reduce(
      (found, candidate) => constantTimeEqual(expected, candidate) || found,
      false,
    );
  });
  if (!matched) {
    throw new WebhookVerificationError(
      'NO_MATCHING_SIGNATURE',
      'no matching signature: webhook-signature has no v1 signature made with this secret over this id, timestamp and body',
    );
  }
  return parseEvent(rawBody);
}

function digest(key: Buffer, id: string, timestamp: string, body: WebhookBody): string {
  const hmac = createHmac('sha256', key);
  if (typeof body === 'string') return hmac.update(`${id}.${timestamp}.${body}`).digest('base64');
  return hmac.update(`${id}.${timestamp}.`).update(body).digest('base64');
}

function singleHeader(headers: WebhookRequestHeaders, name: string): string {
  const values = headerValues(headers, name);
  if (values.length === 0 || values[0] === '') missing(name);
  if (values.length > 1) {
    throw new WebhookVerificationError(
      'INVALID_HEADER',
      `invalid ${name} header: sent ${values.length} times`,
    );
  }
  return values[0];
}

function missing(name: string): never {
  throw new WebhookVerificationError('MISSING_HEADER', `missing ${name} header`);
}

function checkTimestamp(
  text: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = new Date() }: VerifyWebhookOptions,
): void {
  if (!/^\d{1,15}$/.test(text)) {
    throw new WebhookVerificationError(
      'INVALID_HEADER',
      `invalid webhook-timestamp header: expected Unix seconds, got "${text.slice(0, 40)}"`,
    );
  }
  const skew = Math.floor(now.getTime() / 1000) - Number(text);
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      'TIMESTAMP_TOO_OLD',
      `webhook-timestamp too old: ${skew} s before now (tolerance ${toleranceSeconds} s)`,
    );
  }
  if (-skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      'TIMESTAMP_TOO_NEW',
      `webhook-timestamp too new: ${-skew} s after now (tolerance ${toleranceSeconds} s)`,
    );
  }
}

/** The base64 parts of the `v1,` entries; other versions (such as v1a, asymmetric) are skipped. */
function parseSignatures(header: string): Buffer[] {
  const v1 = header.split(/\s+/).filter((entry) => entry.startsWith('v1,'));
  // Proxies that merge repeated headers join them with ", "; drop the trailing comma that leaves.
  return v1.map((entry) => Buffer.from(entry.slice('v1,'.length).replace(/,+$/, '')));
}

function constantTimeEqual(expected: Buffer, candidate: Buffer): boolean {
  // Lengths are public (every v1 signature is 44 characters), so only equal lengths need the constant-time path.
  return expected.length === candidate.length && timingSafeEqual(expected, candidate);
}

function parseEvent(rawBody: WebhookBody): WebhookEvent {
  const text =
    typeof rawBody === 'string'
      ? rawBody
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'invalid payload: the body is not JSON');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new WebhookVerificationError(
      'INVALID_PAYLOAD',
      'invalid payload: the body is not a JSON object',
    );
  }
  const { id, type } = event as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string') {
    throw new WebhookVerificationError(
      'INVALID_PAYLOAD',
      'invalid payload: the event has no string "id" and "type"',
    );
  }
  return event as WebhookEvent;
}
