import { describe, expect, it } from 'vitest';
import {
  absoluteTime,
  humanSize,
  plural,
  relativeTime,
} from '../../emulator/dashboard/app/format.js';

describe('dashboard formats', () => {
  it('counts in the right number', () => {
    expect(plural(1, 'packet')).toBe('1 packet');
    expect(plural(0, 'packet')).toBe('0 packets');
    expect(plural(2, 'delivery', 'deliveries')).toBe('2 deliveries');
    expect(plural(5000, 'delivery', 'deliveries')).toBe('5,000 deliveries');
  });

  it('writes sizes as people read them', () => {
    expect(humanSize(512)).toBe('512 B');
    expect(humanSize(1536)).toBe('1.5 KB');
    expect(humanSize(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(humanSize(200 * 1024 * 1024)).toBe('200 MB');
  });

  it('has one date format, and relative times both ways', () => {
    expect(absoluteTime('2026-11-26T06:12:53Z')).toMatch(/^2026-11-2\d \d\d:\d\d:53$/);
    const now = Date.parse('2026-11-26T06:12:53Z');
    expect(relativeTime(new Date(now - 8000), now)).toBe('8 s ago');
    expect(relativeTime(new Date(now + 8000), now)).toBe('in 8 s');
    expect(relativeTime(new Date(now - 3 * 60_000), now)).toBe('3 min ago');
    expect(relativeTime(new Date(now - 2 * 3_600_000), now)).toBe('2 h ago');
  });
});
