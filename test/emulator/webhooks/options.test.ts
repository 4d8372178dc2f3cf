import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCHEDULE_MS,
  resolveDeliveryOptions,
  retryDelay,
} from '../../../emulator/webhooks/options.js';
import { isLoopback } from '../../../emulator/admin/guard.js';

describe('retry schedule', () => {
  const defaults = resolveDeliveryOptions();

  it('retries first within 5 s and gives up after the schedule', () => {
    expect(DEFAULT_SCHEDULE_MS[0]).toBeLessThanOrEqual(5000);
    for (const random of [0, 0.5, 0.999]) {
      const first = retryDelay(defaults, 1, undefined, () => random)!;
      expect(first).toBeGreaterThanOrEqual(800);
      expect(first).toBeLessThanOrEqual(1200);
    }
    expect(retryDelay(defaults, DEFAULT_SCHEDULE_MS.length, undefined, () => 0.5)).toBe(
      DEFAULT_SCHEDULE_MS.at(-1),
    );
    expect(retryDelay(defaults, DEFAULT_SCHEDULE_MS.length + 1, undefined)).toBeNull();
  });

  it('scales the schedule and Retry-After by timeScale, and lets Retry-After replace the scheduled delay', () => {
    const fast = resolveDeliveryOptions({ timeScale: 0.001, jitter: 0 });
    expect(retryDelay(fast, 2, undefined)).toBe(5);
    expect(retryDelay(fast, 1, 30_000)).toBe(30);
    expect(retryDelay(resolveDeliveryOptions({ jitter: 0 }), 1, 0)).toBe(0);
    // A Retry-After of days is capped at an hour.
    expect(retryDelay(resolveDeliveryOptions(), 1, 3 * 86_400_000)).toBe(3_600_000);
  });

  it('refuses nonsense options', () => {
    expect(() => resolveDeliveryOptions({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => resolveDeliveryOptions({ timeScale: -1 })).toThrow(/timeScale/);
    expect(() => resolveDeliveryOptions({ schedule: [1, -5] })).toThrow(/schedule/);
    expect(() => resolveDeliveryOptions({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => resolveDeliveryOptions({ perPluginConcurrency: 1.5 })).toThrow(
      /perPluginConcurrency/,
    );
    expect(resolveDeliveryOptions()).toMatchObject({ concurrency: 256, perPluginConcurrency: 16 });
  });
});

describe('the delivery log is local only', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.4.5.6', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.8', false],
    ['::ffff:192.168.1.2', false],
    ['fe80::1', false],
    [undefined, false],
  ] as const)('%s → %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});
