/**
 * Retry-After (RFC 9110 §10.2.3), for the client's retries and the emulator's deliveries: whole seconds (a fraction, sign or
 * other text is ignored: the caller keeps its backoff) or an HTTP-date in §5.6.7's three forms, GMT (a past one means 0).
 * Of several values the first counts, as Node does for its own parsed headers.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** Sun, 06 Nov 1994 08:49:37 GMT */
const IMF_FIXDATE = new RegExp(
  `^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`,
);
/** Sunday, 06-Nov-94 08:49:37 GMT */
const RFC850_DATE = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`,
);
/** Sun Nov  6 08:49:37 1994 */
const ASCTIME_DATE = new RegExp(
  `^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`,
);

/** Milliseconds to wait from `now` that a Retry-After value asks for; undefined when absent or invalid. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** An HTTP-date (RFC 9110 §5.6.7) as epoch milliseconds, or undefined when it is not one. */
export function parseHttpDate(text: string, now = Date.now()): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(Number(match[3]), match[2], match[1], match.slice(4, 7));
  match = RFC850_DATE.exec(text);
  if (match) {
    // A two-digit year more than 50 years ahead is read as the most recent past year with those digits.
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, match[2], match[1], match.slice(4, 7));
  }
  match = ASCTIME_DATE.exec(text);
  if (match) return utc(Number(match[6]), match[1], match[2].trim(), match.slice(3, 6));
  return undefined;
}

function utc(
  year: number,
  month: string,
  day: string,
  [hours, minutes, seconds]: string[],
): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  const at = Date.UTC(
    year,
    monthIndex,
    Number(day),
    Number(hours),
    Number(minutes),
    Number(seconds),
  );
  const date = new Date(at);
  // Rejects dates that do not exist (31 Feb, 25:00), which Date.UTC would roll over.
  if (
    date.getUTCDate() !== Number(day) ||
    date.getUTCMonth() !== monthIndex ||
    date.getUTCHours() !== Number(hours) ||
    date.getUTCMinutes() !== Number(minutes) ||
    date.getUTCSeconds() !== Number(seconds)
  )
    return undefined;
  return at;
}
