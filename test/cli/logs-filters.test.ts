import { describe, expect, it } from 'vitest';
import {
  deliveryMatchOf,
  describeFilters,
  givenFilters,
  timeOption,
} from '../../src/commands/logs/filters.js';
import { InvalidOptionValue } from '../../src/commands/types.js';

// The delivery filters of `plugsmith logs` and `plugsmith logs redeliver`, as parsed from the flags.

describe('delivery filter options', () => {
  const now = () => Date.parse('2026-03-01T12:00:00Z');

  it.each([
    ['30m', '2026-03-01T11:30:00.000Z'],
    ['2h', '2026-03-01T10:00:00.000Z'],
    ['7d', '2026-02-22T12:00:00.000Z'],
    ['45s', '2026-03-01T11:59:15.000Z'],
    ['90s', '2026-03-01T11:58:30.000Z'],
    ['2 minutes', '2026-03-01T11:58:00.000Z'],
    ['1hr', '2026-03-01T11:00:00.000Z'],
    ['2026-01-31', '2026-01-31T00:00:00.000Z'],
    ['2026-01-31T09:00:00Z', '2026-01-31T09:00:00.000Z'],
    ['2026-01-31T10:00:00+01:00', '2026-01-31T09:00:00.000Z'],
  ])('--since %s is %s', (value, iso) => {
    expect(timeOption('--since', now)(value)).toBe(iso);
  });

  it('a time it cannot read is refused, naming the flag and both forms', () => {
    expect(() => timeOption('--until', now)('yesterday')).toThrow(InvalidOptionValue);
    expect(() => timeOption('--until', now)('yesterday')).toThrow(
      '--until takes a time (2026-01-31T09:00:00Z) or a duration back from now (30m, 2h, 7d), not "yesterday"',
    );
  });

  it.each([
    ['90', 'a number needs a unit (90s, 90m, 90h, 90d)'],
    ['2', 'a number needs a unit (2s, 2m, 2h, 2d)'],
    ['12/1', 'not "12/1"'],
    ['March 3', 'not "March 3"'],
    ['5 fortnights', 'not "5 fortnights"'],
    ['-5m', 'not "-5m"'],
    ['2026-13-45', 'not "2026-13-45"'],
  ])('--since %s is refused (Date would read it as some other time): %s', (value, says) => {
    expect(() => timeOption('--since', now)(value)).toThrow(InvalidOptionValue);
    expect(() => timeOption('--since', now)(value)).toThrow(says);
  });

  it("the flags become the client's match: failed means failed or exhausted", () => {
    const flags = {
      plugin: 'plg_1',
      type: 'PLUGIN_INSTALLED',
      status: 'failed' as const,
      httpStatus: '5xx',
      failedOnce: true,
      minAttempts: 2,
      since: '2026-01-01T00:00:00.000Z',
    };
    expect(deliveryMatchOf(flags)).toEqual({
      pluginId: 'plg_1',
      search: undefined,
      filters: { type: 'PLUGIN_INSTALLED', status: ['failed', 'exhausted'] },
      failedOnce: true,
      httpStatus: '5xx',
      minAttempts: 2,
      maxAttempts: undefined,
      since: '2026-01-01T00:00:00.000Z',
      until: undefined,
    });
    expect(describeFilters(flags)).toBe(
      '--plugin plg_1 --type PLUGIN_INSTALLED --status failed --http-status 5xx --failed-once --min-attempts 2 --since 2026-01-01T00:00:00.000Z',
    );
    expect(givenFilters(flags)).toEqual([
      '--plugin',
      '--type',
      '--status',
      '--http-status',
      '--failed-once',
      '--min-attempts',
      '--since',
    ]);
    // --min-attempts 0 is a filter (it was given); a flag left out is not.
    expect(givenFilters({ minAttempts: 0 })).toEqual(['--min-attempts']);
    expect(givenFilters({})).toEqual([]);
  });
});
