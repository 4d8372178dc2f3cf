import { describe, expect, it } from 'vitest';
import { parseRetryAfter as clientParseRetryAfter } from '../../src/client/index.js';
import { parseRetryAfter as deliveryParseRetryAfter } from '../../emulator/webhooks/options.js';
import { parseHttpDate, parseRetryAfter } from '#contract/retry-after';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  it('is the same function for the client and for webhook deliveries', () => {
    expect(clientParseRetryAfter).toBe(parseRetryAfter);
    expect(deliveryParseRetryAfter).toBe(parseRetryAfter);
  });

  it('reads delay-seconds, a whole number of seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
  });

  it('reads an HTTP-date in its three forms, a past date meaning now', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:12 GMT', now)).toBe(12_000);
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:12 GMT', now)).toBe(12_000);
    expect(parseRetryAfter('Thu Jan  1 00:00:12 2026', now)).toBe(12_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(
      Date.parse('1994-11-06T08:49:37Z'),
    );
  });

  it('ignores what is not a valid value: fractions, signs, other dates and words', () => {
    for (const value of [
      '1.5',
      '0.3',
      '-1',
      '+5',
      '1e3',
      'soon',
      '2026-01-01T00:00:12Z',
      'Thu, 01 Jan 2026 00:00:12 +0000',
      'Thu, 31 Feb 2026 00:00:12 GMT',
      '',
      '   ',
    ]) {
      expect(parseRetryAfter(value, now), value).toBeUndefined();
    }
  });

  it('gives undefined when absent and takes the first of several values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
  });
});
