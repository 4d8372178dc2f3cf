import { expect } from 'vitest';
import {
  ReplyEngineError,
  type ReplyEngineErrorCode,
} from '../../../../emulator/messaging/characters/index.js';

/** Reads a reply to its end. */
export async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const packets: string[] = [];
  for await (const packet of stream) packets.push(packet);
  return packets;
}

/** Reads a reply that must fail; returns the packets seen before and the ReplyEngineError. */
export async function collectFailure(
  stream: AsyncIterable<string>,
  code: ReplyEngineErrorCode,
): Promise<{ packets: string[]; error: ReplyEngineError }> {
  const packets: string[] = [];
  try {
    for await (const packet of stream) packets.push(packet);
  } catch (error) {
    expect(error).toBeInstanceOf(ReplyEngineError);
    expect((error as ReplyEngineError).code, (error as Error).message).toBe(code);
    return { packets, error: error as ReplyEngineError };
  }
  throw new Error(`the reply ended without an error; packets: ${JSON.stringify(packets)}`);
}

/** The invariants every engine keeps: no empty packet. */
export function expectPacketsWellFormed(packets: string[]): void {
  for (const p of packets) expect(p.length).toBeGreaterThan(0);
}
