import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { claimPort, type PortClaim } from '../../src/dev/port-claims.js';
import { tempDir } from '../kit/index.js';

// The claims of plugin ports in the per-user state (src/dev/port-claims.ts), on real files in a
// temporary config dir: of many claims racing for one port exactly one wins; a claim is released by
// its owner only; a claim left by a process that is gone is taken over.

test('of twelve claims racing for one port one wins; the others name its holder; released, the port can be claimed again', async () => {
  const dir = await tempDir('plugsmith-claims-');
  const previous = process.env.PLUGSMITH_CONFIG_DIR;
  process.env.PLUGSMITH_CONFIG_DIR = dir;
  try {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => claimPort(40123, `/projects/p${i}`)),
    );
    const won = results.filter((r): r is PortClaim => !('heldBy' in r));
    expect(won).toHaveLength(1);
    for (const r of results) if ('heldBy' in r) expect(r.heldBy.pid).toBe(process.pid);
    // Only the claim's own release removes it.
    const second = await claimPort(40124, '/projects/b');
    expect('heldBy' in second).toBe(false);
    await won[0].release();
    const again = await claimPort(40123, '/projects/c');
    expect('heldBy' in again).toBe(false);
    await (again as PortClaim).release();
    await (second as PortClaim).release();
  } finally {
    if (previous === undefined) delete process.env.PLUGSMITH_CONFIG_DIR;
    else process.env.PLUGSMITH_CONFIG_DIR = previous;
  }
});

test('a claim left by a process that is gone is taken over; one of a living process is not', async () => {
  const dir = await tempDir('plugsmith-claims-');
  const previous = process.env.PLUGSMITH_CONFIG_DIR;
  process.env.PLUGSMITH_CONFIG_DIR = dir;
  try {
    // A real process, ended: its pid names nothing any more.
    const child = spawn(process.execPath, ['-e', '0']);
    await once(child, 'exit');
    await mkdir(join(dir, 'plugin-ports'), { recursive: true });
    const path = join(dir, 'plugin-ports', '40125.json');
    await writeFile(
      path,
      JSON.stringify({ pid: child.pid, project: '/gone', claim: 'x', claimedAt: '' }),
    );
    const taken = await claimPort(40125, '/projects/a');
    expect('heldBy' in taken).toBe(false);
    expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);

    // A living process's claim (this test runner's parent) stays.
    await writeFile(
      join(dir, 'plugin-ports', '40126.json'),
      JSON.stringify({ pid: process.ppid, project: '/alive', claim: 'y', claimedAt: '' }),
    );
    expect(await claimPort(40126, '/projects/a')).toEqual({
      heldBy: { pid: process.ppid, project: '/alive' },
    });
    await (taken as PortClaim).release();
  } finally {
    if (previous === undefined) delete process.env.PLUGSMITH_CONFIG_DIR;
    else process.env.PLUGSMITH_CONFIG_DIR = previous;
  }
});
