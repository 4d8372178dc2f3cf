// Issue 42's "keep" budget: durable creates (`POST /api/plugins`, each acknowledged only once its
// journal line is on disk) at least 5,000/s, with 10,000 and with 100,000 plugins already stored.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, startServer } from './lib.js';
import { populate } from './management.js';

const BUDGET_RPS = 5_000;

export default async function creates({ duration, quick }) {
  const rows = [];
  for (const size of quick ? [10_000] : [10_000, 100_000]) {
    const dir = await mkdtemp(join(tmpdir(), 'plugsmith-bench-'));
    try {
      populate(dir, size);
      const emu = await startServer('emulator.js', [dir]);
      try {
        const create = await load({
          url: `${emu.url}/api/plugins`,
          method: 'POST',
          headers: { authorization: emu.token, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'created',
            type: 'APP',
            orgId: emu.orgId,
            tags: ['x'],
            isPublic: true,
          }),
          duration,
        });
        rows.push({
          name: `POST /api/plugins durable (${size / 1000}k stored)`,
          ...create,
          budget: `>= ${BUDGET_RPS.toLocaleString('en')}/s`,
          // A failed create (an error, a timeout) misses the budget: the rate counts answered ones.
          met: create.rps >= BUDGET_RPS && create.failures === 0,
        });
      } finally {
        await emu.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return rows;
}
