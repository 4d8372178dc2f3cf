import { StorageError } from './types.js';

/** Keys under this prefix are public: readable without a signature on both backends. */
export const PUBLIC_PREFIX = 'public/';
/** Prefix `objectKey` gives private files (any key outside `public/` is private). */
export const PRIVATE_PREFIX = 'private/';

/** S3's own limit on key length, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;
/** Room kept for the file name inside a key, so prefix + id + name stay well under every limit. */
const MAX_NAME_BYTES = 200;

/** A key that would escape the store or that S3 would refuse; the embedded routes answer 400. */
export class InvalidKeyError extends StorageError {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`Invalid object key: ${reason}`);
    this.name = 'InvalidKeyError';
  }
}

/** Why a key is unusable, or null when it is fine. */
export function keyProblem(key: unknown): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'the key is empty';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES)
    return `the key is longer than ${MAX_KEY_BYTES} bytes`;
  if (key.startsWith('/')) return 'the key must not start with /';
  if (key.includes('\\')) return 'the key must not contain \\';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'the key must not contain control characters';
  for (const segment of key.split('/')) {
    if (segment === '') return 'the key must not contain empty segments (// or a trailing /)';
    if (segment === '.' || segment === '..') return 'the key must not contain . or .. segments';
  }
  return null;
}

/** Throws InvalidKeyError unless the key is usable. */
export function assertValidKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new InvalidKeyError(key, problem);
}

/** Whether an object is readable without a signature. */
export function isPublicKey(key: string): boolean {
  return key.startsWith(PUBLIC_PREFIX);
}

/** `public|private/<fileId>/<name>`: the name (separators replaced, cut to 200 bytes) is kept so a public URL ends in the file's name. */
export function objectKey(fileId: string, fileName: string, isPublic: boolean): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
  let name = fileName.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
  if (name === '' || name === '.' || name === '..') name = '_';
  name = truncateUtf8(name, MAX_NAME_BYTES);
  const key = `${isPublic ? PUBLIC_PREFIX : PRIVATE_PREFIX}${fileId}/${name}`;
  assertValidKey(key);
  return key;
}

/** The key as a URL path: each segment percent-encoded, slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeRfc3986).join('/');
}

/** RFC 6266 `attachment`: `filename="…"`, plus `filename*=UTF-8''…` (with an ASCII fallback) for a name that is not plain ASCII. */
export function attachment(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (fallback === fileName) return `attachment; filename="${fileName}"`;
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc3986(fileName)}`;
}

function encodeRfc3986(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}
