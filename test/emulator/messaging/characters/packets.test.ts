import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  splitIntoPackets,
  streamWithInterval,
} from '../../../../emulator/messaging/characters/packets.js';
import { collect, collectFailure } from './collect.js';

describe('splitIntoPackets', () => {
  it('cuts text into packets of the given number of code points', () => {
    expect(splitIntoPackets('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(splitIntoPackets('abcd', 4)).toEqual(['abcd']);
    expect(splitIntoPackets('', 4)).toEqual([]);
  });

  it('never cuts a surrogate pair', () => {
    expect(splitIntoPackets('a😀b😀', 1)).toEqual(['a', '😀', 'b', '😀']);
    expect(splitIntoPackets('😀😀😀', 2)).toEqual(['😀😀', '😀']);
  });

  it('refuses a size that is not a positive integer', () => {
    for (const size of [0, -1, 1.5, Number.NaN])
      expect(() => splitIntoPackets('abc', size)).toThrow(RangeError);
  });

  it('keeps its invariants for any text and size', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', ' ', 'é', '中', '😀', '🏽', '\n', '\uD800'),
          maxLength: 60,
        }),
        fc.integer({ min: 1, max: 12 }),
        (text, size) => {
          const packets = splitIntoPackets(text, size);
          expect(packets.join('')).toBe(text);
          packets.forEach((p, i) => {
            const points = [...p].length;
            if (i < packets.length - 1) expect(points).toBe(size);
            else expect(points).toBeGreaterThanOrEqual(1);
            expect(points).toBeLessThanOrEqual(size);
          });
          // Had a surrogate pair been cut, the packets' code points would differ from the text's.
          expect(packets.flatMap((p) => [...p])).toEqual([...text]);
          expect(splitIntoPackets(text, size)).toEqual(packets);
        },
      ),
    );
  });
});

describe('streamWithInterval', () => {
  it('with interval 0 delivers every packet before any timer or immediate can run', async () => {
    let immediateRan = false;
    const immediate = setImmediate(() => (immediateRan = true));
    const timer = setTimeout(() => (immediateRan = true), 0);
    const packets = await collect(streamWithInterval(['a', 'b', 'c', 'd'], 0));
    expect(packets).toEqual(['a', 'b', 'c', 'd']);
    expect(immediateRan).toBe(false);
    clearImmediate(immediate);
    clearTimeout(timer);
  });

  it('waits the interval between packets but not before the first', async () => {
    // The first packet comes before any timer can run, however loaded the machine.
    let timerRan = false;
    const timer = setTimeout(() => (timerRan = true), 0);
    const start = performance.now();
    const times: number[] = [];
    const timerRanBefore: boolean[] = [];
    for await (const _ of streamWithInterval(['a', 'b', 'c'], 40)) {
      times.push(performance.now() - start);
      timerRanBefore.push(timerRan);
    }
    clearTimeout(timer);
    expect(timerRanBefore).toEqual([false, true, true]);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(35);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(35);
  });

  it('ends with ABORTED when the signal fires while waiting', async () => {
    const controller = new AbortController();
    const start = performance.now();
    setTimeout(() => controller.abort(), 30);
    const { packets } = await collectFailure(
      streamWithInterval(['a', 'b', 'c'], 10_000, controller.signal),
      'ABORTED',
    );
    expect(packets).toEqual(['a']);
    expect(performance.now() - start).toBeLessThan(2_000);
  });

  it('ends with ABORTED at once when the signal has already fired', async () => {
    await collectFailure(streamWithInterval(['a'], 0, AbortSignal.abort()), 'ABORTED');
  });
});
