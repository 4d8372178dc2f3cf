import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startEmulator } from '../../../emulator/index.js';
import { builtEmulator, startChild, type ChildInfo } from '../../kit/emulator-child.js';
import { emulatorInternals } from '../../../emulator/internals.js';

// startEmulator rather than the kit's emulator(): this file restarts on the data dir a killed child left, round after round.

const CONCURRENCY = 50;
const ROUNDS = 3;

let dir: string;
beforeAll(async () => {
  builtEmulator();
  dir = await mkdtemp(join(tmpdir(), 'plugsmith-crash-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * 50 concurrent workers creating plugins until the connection breaks; calls `onAck` for each 201.
 * Resolves once every worker has stopped.
 */
async function storm(
  info: ChildInfo,
  round: number,
  onAck: (id: string, count: number) => void,
): Promise<{ acked: Map<string, string>; errors: number }> {
  const pool = new Pool(info.url, { connections: CONCURRENCY, pipelining: 1 });
  const acked = new Map<string, string>();
  let errors = 0;
  let stopped = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const name = `r${round}-w${w}-${i}`;
      try {
        const res = await pool.request({
          path: '/api/plugins',
          method: 'POST',
          headers: { authorization: info.token, 'content-type': 'application/json' },
          body: JSON.stringify({
            orgId: info.orgId,
            name,
            type: 'APP',
            tags: [`w${w}`],
            description: 'storm',
          }),
        });
        const body = (await res.body.json()) as { data: { id: string; name: string } };
        if (res.statusCode !== 201)
          throw new Error(`unexpected ${res.statusCode}: ${JSON.stringify(body)}`);
        acked.set(body.data.id, name);
        onAck(body.data.id, acked.size);
      } catch (error) {
        // The emulator was killed: this worker is done. Anything else is a failure.
        if (
          !/ECONNRESET|ECONNREFUSED|SocketError|other side closed|socket hang up|EPIPE/i.test(
            `${(error as Error).message} ${(error as { code?: string }).code}`,
          )
        ) {
          stopped = true;
          throw error;
        }
        errors++;
        stopped = true;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  } finally {
    await pool.destroy();
  }
  return { acked, errors };
}

/** Rounds of storm, SIGKILL and restart on one data dir; every acknowledged create must be there after each. */
async function crashRounds(
  dataDir: string,
  childOptions: { compactAfterLines?: number } = {},
): Promise<void> {
  const all = new Map<string, string>();
  for (let round = 0; round < ROUNDS; round++) {
    const child = await startChild(dataDir, childOptions);
    // Kill after a varying number of acknowledged creates, with dozens still in flight.
    const killAt = 100 + Math.floor(Math.random() * 300);
    let killing: Promise<void> | undefined;
    const { acked } = await storm(child.info, round, (_id, count) => {
      if (count >= killAt && !killing) killing = child.kill();
    });
    await (killing ?? child.kill());
    expect(child.process.signalCode).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(killAt);
    for (const [id, name] of acked) all.set(id, name);

    // Restart on the same data dir: the store loads and every acknowledged record is there.
    const emu = await startEmulator({ dataDir });
    try {
      const missing = [...all].filter(
        ([id, name]) => emulatorInternals(emu).db.plugins.get(id)?.name !== name,
      );
      expect(missing, `acknowledged creates lost in round ${round}`).toEqual([]);
      expect(emulatorInternals(emu).db.plugins.size).toBeGreaterThanOrEqual(all.size);
      // And it serves: the restarted emulator still uses the same credentials.
      const res = await fetch(`${emu.url}/api/plugins/${[...all.keys()][0]}`, {
        headers: { authorization: child.info.token },
      });
      expect(res.status).toBe(200);
    } finally {
      await emu.close();
    }
  }
}

test(
  `every acknowledged create survives SIGKILL of the emulator mid-storm (${ROUNDS} rounds)`,
  () => crashRounds(dir),
  120_000,
);

test(`and so when the journal is compacted into the snapshot every 40 lines, so kills land during snapshot rewrites (${ROUNDS} rounds)`, async () => {
  const compacting = await mkdtemp(join(tmpdir(), 'plugsmith-crash-compact-'));
  try {
    await crashRounds(compacting, { compactAfterLines: 40 });
    // Compactions did happen: later generations of the journal exist.
    expect((await readdir(compacting)).some((f) => /^journal-[1-9]\d*\.jsonl$/.test(f))).toBe(true);
  } finally {
    await rm(compacting, { recursive: true, force: true });
  }
}, 120_000);
