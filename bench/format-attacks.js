// One long value per format ajv-formats offers, built to make that format's original (backtracking)
// check work hard; each fails its format. Shared by bench/security.js and
// test/security/input-format-redos.test.ts, so the benchmark and the test attack with the same values.

const N = 64_000;

/** @type {Record<string, string>} */
export const FORMAT_ATTACKS = {
  date: `2020-01-0${'1'.repeat(N)}`,
  time: `00:00:00.${'0'.repeat(N)}x`,
  'date-time': `2020-01-01T00:00:00.${'0'.repeat(N)}x`,
  'iso-time': `00:00:00.${'0'.repeat(N)}x`,
  'iso-date-time': `2020-01-01 00:00:00.${'0'.repeat(N)}x`,
  duration: `P${'1'.repeat(N)}x`,
  uri: `a://${'a-'.repeat(N / 2)}"`,
  'uri-reference': `${':'.repeat(N)} `,
  'uri-template': `{${'a'.repeat(N)}`,
  url: `http://${':'.repeat(N)} `,
  email: `a@${'a-'.repeat(N / 2)}!`,
  hostname: `${'a.'.repeat(N / 2)}-`,
  ipv4: '1.'.repeat(N / 2),
  ipv6: `${':'.repeat(N)}x`,
  regex: '('.repeat(N),
  uuid: 'aa-'.repeat(N / 3),
  'json-pointer': `/${'~'.repeat(N)}`,
  'json-pointer-uri-fragment': `#/${'%'.repeat(N)}`,
  'relative-json-pointer': `0${'/~'.repeat(N / 2)}`,
  byte: `${'AAAA'.repeat(N / 4)}!`,
};
