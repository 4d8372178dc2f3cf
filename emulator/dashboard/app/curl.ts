// Copy as curl: a POSIX shell command that sends one logged attempt again, byte for byte. Pure
// (no DOM, no Node) so that it is unit-tested with hostile bodies and run by the browser tests.

/** A string as one POSIX shell word: single-quoted, each `'` written as `'\''`; nothing inside is expanded. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** What the command sends: where, which headers (in order), and the exact body. */
export interface CurlRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The curl command of a request: POST to the URL with every header and the body as it was signed.
 * `--data-raw` sends the body as it is (no `@file` reading, no newline stripping); each part is
 * single-quoted, so quotes, newlines, `$()` and backticks in the body stay data. `-g` turns off
 * curl's URL globbing (`[1-3]`, `{a,b}` would send several requests to other URLs), and `--url`
 * names the URL as the option's value, so a URL that starts with `-` is never read as an option.
 */
export function curlCommand(request: CurlRequest): string {
  const lines = [`curl -sS -g -X POST --url ${shellQuote(request.url)}`];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  lines.push(`--data-raw ${shellQuote(request.body)}`);
  return lines.join(' \\\n  ');
}
