import { Ajv, type FormatDefinition } from 'ajv';
import addFormats from 'ajv-formats';

/*
 * `format` checks in bounded time. ajv-formats' `url` backtracks quadratically (`http://`, 64,000 `:` and a space: 18 s), so
 * `linearUrl` judges it in linear time; the other checks, measured linear (the fuzz tests keep trying), see no string past
 * MAX_FORMAT_LENGTH except `byte` (fixed-width base64 groups cannot backtrack). `regex` only parses with `new RegExp`.
 */

/** Longest string a `format` is checked on; a longer one fails the format. */
export const MAX_FORMAT_LENGTH = 4096;

const UNCAPPED = new Set(['byte']);

/** ajv-formats' formats (full mode), read from an Ajv it added them to: its public API, unlike its dist/formats.js. The tests compare the bounded checks with these. */
export const fullFormats = addFormats.default(new Ajv({ logger: false }), {
  keywords: false,
}).formats;

type Check = (value: string) => boolean;

const URL_REGEXP = fullFormats.url as RegExp;
const URL_SCHEME = /^(?:https?|ftp):\/\//i;
const URL_USER = '^(?:https?|ftp):\\/\\/(?:\\S+(?::\\S*)?@)?';
const URL_PATH = '(?:\\/[^\\s]*)?$';
if (!URL_REGEXP.source.startsWith(URL_USER) || !URL_REGEXP.source.endsWith(URL_PATH)) {
  throw new Error('ajv-formats changed its url format: update emulator/validation/formats.ts');
}
/** ajv-formats' url expression between the user part and the path: the host and the port. */
const URL_HOST_PORT = new RegExp(
  `^${URL_REGEXP.source.slice(URL_USER.length, -URL_PATH.length)}$`,
  URL_REGEXP.flags,
);
const WHITESPACE = /\s/u;

/**
 * ajv-formats' `url` in linear time: in `scheme://[user@]host[:port][/path]` (user any non-space run, host and port free of
 * `/` and `@`) the host starts after the scheme or an `@` and ends at the next `/`, so each candidate is checked once.
 */
export function linearUrl(value: string): boolean {
  const scheme = URL_SCHEME.exec(value);
  if (!scheme) return false;
  const rest = value.slice(scheme[0].length);
  if (WHITESPACE.test(rest)) return false;
  const slash = rest.indexOf('/');
  if (URL_HOST_PORT.test(rest.slice(0, slash === -1 ? rest.length : slash))) return true;
  let nextSlash = slash;
  for (let at = rest.indexOf('@', 1); at !== -1; ) {
    const nextAt = rest.indexOf('@', at + 1);
    if (nextSlash !== -1 && nextSlash <= at) nextSlash = rest.indexOf('/', at + 1);
    const end = nextSlash === -1 ? rest.length : nextSlash;
    // An `@` followed by another before the next `/` would leave an `@` in the host.
    if ((nextAt === -1 || nextAt > end) && URL_HOST_PORT.test(rest.slice(at + 1, end))) return true;
    at = nextAt;
  }
  return false;
}

function checkOf(format: unknown): Check | null {
  if (format instanceof RegExp)
    return (value) => {
      format.lastIndex = 0;
      return format.test(value);
    };
  if (typeof format === 'function') return format as Check;
  if (typeof format === 'object' && format !== null && 'validate' in format) {
    const { validate, type } = format as { validate: unknown; type?: string };
    if (type !== undefined && type !== 'string') return null;
    return checkOf(validate);
  }
  return null;
}

/** The string formats, each bounded as described above (number formats and `password`/`binary` are not string checks). */
export const boundedFormats: Record<string, FormatDefinition<string>> = Object.fromEntries(
  Object.entries(fullFormats).flatMap(([name, format]) => {
    const check = name === 'url' ? linearUrl : checkOf(format);
    if (!check) return [];
    const compare =
      typeof format === 'object' && format !== null && 'compare' in format
        ? (format.compare as FormatDefinition<string>['compare'])
        : undefined;
    const capped = UNCAPPED.has(name)
      ? check
      : (value: string) => value.length <= MAX_FORMAT_LENGTH && check(value);
    return [[name, { type: 'string' as const, validate: capped, ...(compare ? { compare } : {}) }]];
  }),
);

/** How many characters of `value` checking `format` may read: the whole string for `byte`, else at most MAX_FORMAT_LENGTH + 1. */
export function formatReadLength(format: string, value: string): number {
  return UNCAPPED.has(format) ? value.length : Math.min(value.length, MAX_FORMAT_LENGTH + 1);
}

/** Whether `value` fails `format` for its length alone (past MAX_FORMAT_LENGTH), so the error can say so. */
export function isCappedFormatTooLong(format: string, value: string): boolean {
  return value.length > MAX_FORMAT_LENGTH && format in boundedFormats && !UNCAPPED.has(format);
}

/** Replaces ajv-formats' string formats in `ajv` (after ajv-formats added them) with the bounded ones. */
export function useBoundedFormats<T extends Ajv>(ajv: T): T {
  for (const [name, format] of Object.entries(boundedFormats)) ajv.addFormat(name, format);
  return ajv;
}
