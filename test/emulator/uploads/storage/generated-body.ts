import { Readable } from 'node:stream';

/** A body of `size` bytes produced in 64 KiB chunks (sent without Content-Length), never held whole in memory. */
export function generated(size: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, 7);
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}
