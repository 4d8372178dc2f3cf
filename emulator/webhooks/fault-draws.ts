import { randomInt } from 'node:crypto';

/** A fresh random seed (a number, easy to copy into --faults-seed). */
export function newFaultSeed(): string {
  return String(randomInt(1, 2 ** 31 - 1));
}

/** Draws faults by hashing (seed, delivery number, attempt, decision): the same emissions meet the same faults however attempts interleave. */
export class FaultDraws {
  private readonly key: number;

  constructor(readonly seed: string) {
    this.key = fnv1a(seed);
  }

  /** A number in [0, 1) for one decision. */
  draw(delivery: number, attempt: number, decision: number): number {
    let h = this.key ^ Math.imul(delivery + 1, 0x9e3779b1);
    h = mix(h ^ Math.imul(attempt + 1, 0x85ebca77));
    h = mix(h ^ Math.imul(decision + 1, 0xc2b2ae3d));
    return (h >>> 0) / 4294967296;
  }
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** murmur3's finalizer: spreads every input bit over the output. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
