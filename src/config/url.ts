import { UserError, EXIT } from '../errors.js';

/** Why `value` is not a usable platform URL (absolute http(s), no query or fragment); undefined when it is. */
export function httpUrlProblem(value: string): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  // `localhost:4010` parses with the scheme "localhost:", so the scheme check catches it too.
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    return `must be an absolute http(s) URL such as http://127.0.0.1:4010, not "${value}"`;
  if (url.search !== '' || url.hash !== '')
    return `must not have a query or fragment, not "${value}"`;
  return undefined;
}

/** `value` when it is a usable platform URL; else a usage error (exit 2) naming `source`. */
export function checkedHttpUrl(source: string, value: string): string {
  const problem = httpUrlProblem(value);
  if (problem) throw new UserError(`${source} ${problem}`, EXIT.USAGE);
  return value;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)$/;

/** Whether a URL points at this machine (where an emulator would run). */
export function isLoopback(url: string): boolean {
  return URL.canParse(url) && LOOPBACK.test(new URL(url).hostname);
}

/**
 * A base URL in one spelling (lower-case, no default port, trailing slash, query or fragment, every loopback host written
 * 127.0.0.1): two URLs reach the same server, the same emulator, when these are equal.
 */
export function normalizeBaseUrl(baseUrl: string): string {
  if (!URL.canParse(baseUrl)) return baseUrl.replace(/\/+$/, '');
  const url = new URL(baseUrl);
  if (LOOPBACK.test(url.hostname)) url.hostname = '127.0.0.1';
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}
