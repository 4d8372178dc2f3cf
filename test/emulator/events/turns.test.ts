import { describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { DeliveryTurns } from '../../../emulator/events/turns.js';

/** Keeps the thread busy for `ms` (a piece of delivery work: signing, logging). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

describe('delivery turns', () => {
  it('runs waiting work in order, in slices, and lets other callbacks of the event loop run between slices', async () => {
    const turns = new DeliveryTurns({ share: 0, minMs: 3, maxMs: 3 });
    const done: number[] = [];
    let doneWhenOtherRan = -1;
    const work = Array.from({ length: 20 }, async (_, i) => {
      await turns.next();
      busy(1);
      done.push(i);
    });
    // An API request's callback, queued after the work: it must not wait for all 20 pieces.
    setImmediate(() => (doneWhenOtherRan = done.length));
    await Promise.all(work);
    expect(done).toEqual([...Array(20).keys()]);
    expect(doneWhenOtherRan).toBeGreaterThanOrEqual(0);
    expect(doneWhenOtherRan).toBeLessThan(20);
    expect(turns.size).toBe(0);
  });

  it('logs answers before it sends more: an answer waiting goes ahead of sends asked for earlier', async () => {
    const turns = new DeliveryTurns({ share: 0, minMs: 50, maxMs: 50 });
    const order: string[] = [];
    await Promise.all([
      turns.next('send').then(() => order.push('send 1')),
      turns.next('send').then(() => order.push('send 2')),
      turns.next('answer').then(() => order.push('answer 1')),
    ]);
    expect(order).toEqual(['answer 1', 'send 1', 'send 2']);
  });
});
