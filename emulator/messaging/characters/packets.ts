import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from './errors.js';

/** Splits `text` into packets of `size` code points (the last may be shorter), so a surrogate pair is never cut in two. */
export function splitIntoPackets(text: string, size: number): string[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`packet size must be a positive integer, got ${size}`);
  const packets: string[] = [];
  let current = '';
  let count = 0;
  for (const codePoint of text) {
    current += codePoint;
    if (++count === size) {
      packets.push(current);
      current = '';
      count = 0;
    }
  }
  if (current !== '') packets.push(current);
  return packets;
}

/** Yields `packets` with `intervalMs` between them; with 0 no timer is involved, so they follow in the same turn of the event loop. */
export async function* streamWithInterval(packets: Iterable<string>, intervalMs: number, signal?: AbortSignal): AsyncGenerator<string> {
  let first = true;
  for (const packet of packets) {
    if (signal?.aborted) throw abortedError(signal);
    if (!first && intervalMs > 0) {
      await sleep(intervalMs, undefined, { signal }).catch((error) => {
        throw signal?.aborted ? abortedError(signal) : error;
      });
    }
    first = false;
    yield packet;
  }
}
