import { encodeParam } from './query.js';

/** Shows a credential as its kind prefix and last four characters, e.g. `pst_…abcd`; short ones fully hidden. */
export function redactSecret(secret: string): string {
  const prefix = /^[A-Za-z]{1,8}_/.exec(secret)?.[0] ?? '';
  // Show the tail only when it leaves most of the secret hidden.
  if (secret.length - prefix.length < 16) return '[redacted]';
  return `${prefix}…${secret.slice(-4)}`;
}

/** An Authorization header value with its secret redacted; keeps the scheme (`Bearer pst_…abcd`). */
export function redactAuthorization(value: string): string {
  const match = /^(\w+)\s+(.+)$/.exec(value);
  if (match) return `${match[1]} ${redactSecret(match[2])}`;
  return redactSecret(value);
}

const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-plugsmith-admin',
  'x-plugsmith-session',
]);

/** Copies headers for a trace, with every credential-bearing header redacted. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization')
      out[name] = redactAuthorization(value);
    else if (SECRET_HEADERS.has(lower)) out[name] = '[redacted]';
    else out[name] = value;
  }
  return out;
}

const SECRET_PARAM = /signature|credential|token|secret|key|sig$/i;

/** A URL with signed-URL credentials (X-Amz-Signature, tokens…) and userinfo hidden. */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  let changed = false;
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = '';
    parsed.password = '';
    changed = true;
  }
  const kept: string[] = [];
  for (const [name, value] of parsed.searchParams) {
    const hidden = SECRET_PARAM.test(name);
    changed ||= hidden;
    kept.push(`${encodeParam(name)}=${hidden ? '[redacted]' : encodeParam(value)}`);
  }
  if (!changed) return url;
  parsed.search = '';
  return parsed.toString() + (kept.length > 0 ? '?' + kept.join('&') : '');
}
