import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from './errors.js';

/** Splits `text` into packets of `size` code points (the last may be shorter), so a surrogate pair is never cut in two. */
export function splitIntoPackets(text: string, size: number): string[] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`packet size must be a positive integer, got ${size}`);
  const codePoints = Array.from(text);
  const packets: string[] = [];
  for (let start = 0; start < codePoints.length; start += size)
    packets.push(codePoints.slice(start, start + size).join(''));
  return packets;
}

/** Yields `packets` with `intervalMs` between them; with 0 no timer is involved, so they follow in the same turn of the event loop. */
export async function* streamWithInterval(
  packets: string[],
  intervalMs: number,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  for (const [index, packet] of packets.entries()) {
    if (signal?.aborted) throw abortedError(signal);
    if (index > 0 && intervalMs > 0) {
      await sleep(intervalMs, undefined, { signal }).catch((error) => {
        throw signal?.aborted ? abortedError(signal) : error;
      });
    }
    yield packet;
  }
}
