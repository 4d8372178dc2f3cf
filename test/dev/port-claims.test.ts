import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { claimPort, claimProjectPlugin, type PortClaim } from '../../src/dev/port-claims.js';
import { tempDir } from '../kit/index.js';

// The claims of plugin ports and of a project's plugin in the per-user state (src/dev/port-claims.ts), on real files in
// a temporary config dir: of many claims racing for one port exactly one wins; a claim is released by its owner only; a
// claim left by a process that is gone, or whose pid now names another process, is taken over.

/** Runs `body` with PLUGSMITH_CONFIG_DIR set to a new temporary folder. */
async function inConfigDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await tempDir('plugsmith-claims-');
  const previous = process.env.PLUGSMITH_CONFIG_DIR;
  process.env.PLUGSMITH_CONFIG_DIR = dir;
  try {
    await body(dir);
  } finally {
    if (previous === undefined) delete process.env.PLUGSMITH_CONFIG_DIR;
    else process.env.PLUGSMITH_CONFIG_DIR = previous;
  }
}

/** Writes a claim file as a dev would have left it (claimed now unless `claimedAt` says otherwise); returns its path. */
async function writeClaim(
  dir: string,
  at: `${'plugin-ports' | 'dev-sessions'}/${string}`,
  holder: {
    pid: number;
    project: string;
    claim: string;
    claimedAt?: string;
    boot?: string;
    startTicks?: number;
  },
): Promise<string> {
  const path = join(dir, `${at}.json`);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, JSON.stringify({ claimedAt: new Date().toISOString(), ...holder }));
  return path;
}

/** The pid of a real process that has ended: it names nothing any more. */
async function pidOfEndedProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid!;
}

test('of twelve claims racing for one port one wins; the others name its holder; released, the port can be claimed again', async () => {
  await inConfigDir(async () => {
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
  });
});

test('a claim left by a process that is gone is taken over; one of a living process is not, and its refusal names the file', async () => {
  await inConfigDir(async (dir) => {
    const gone = await writeClaim(dir, 'plugin-ports/40125', {
      pid: await pidOfEndedProcess(),
      project: '/gone',
      claim: 'x',
      claimedAt: '',
    });
    const taken = await claimPort(40125, '/projects/a');
    expect('heldBy' in taken).toBe(false);
    expect(JSON.parse(await readFile(gone, 'utf8')).pid).toBe(process.pid);

    // A living process's claim (this test runner's parent) stays.
    const living = await writeClaim(dir, 'plugin-ports/40126', {
      pid: process.ppid,
      project: '/alive',
      claim: 'y',
      claimedAt: '',
    });
    expect(await claimPort(40126, '/projects/a')).toEqual({
      heldBy: { pid: process.ppid, project: '/alive', file: living },
    });
    await (taken as PortClaim).release();
  });
});

test("a claim naming this very process, made before it started, is stale: a restarted container's dev may get the pid of the one before", async () => {
  await inConfigDir(async (dir) => {
    const path = await writeClaim(dir, 'plugin-ports/40127', {
      pid: process.pid,
      project: '/before-the-restart',
      claim: 'not-ours',
      claimedAt: new Date(performance.timeOrigin - 60_000).toISOString(),
    });
    const taken = await claimPort(40127, '/projects/a');
    expect('heldBy' in taken).toBe(false);
    // The claim this process made is not stale to it: a second claim is refused, naming the file.
    expect(await claimPort(40127, '/projects/b')).toEqual({
      heldBy: { pid: process.pid, project: '/projects/a', file: path },
    });
    await (taken as PortClaim).release();
  });
});

test.runIf(process.platform === 'linux')(
  'on Linux, a claim whose pid now names a process started after the claim (a reboot reused it) is stale; one made after the process started holds',
  async () => {
    await inConfigDir(async (dir) => {
      // The parent of this worker lives, and started long after 2001.
      const reused = await writeClaim(dir, 'plugin-ports/40128', {
        pid: process.ppid,
        project: '/before-the-reboot',
        claim: 'old',
        claimedAt: '2001-01-01T00:00:00.000Z',
      });
      const taken = await claimPort(40128, '/projects/a');
      expect('heldBy' in taken).toBe(false);
      expect(JSON.parse(await readFile(reused, 'utf8')).pid).toBe(process.pid);
      await (taken as PortClaim).release();

      // Claimed now, by the same living process: held.
      await writeClaim(dir, 'plugin-ports/40129', {
        pid: process.ppid,
        project: '/alive',
        claim: 'new',
      });
      const refused = await claimPort(40129, '/projects/a');
      expect(refused).toMatchObject({ heldBy: { pid: process.ppid, project: '/alive' } });
    });
  },
);

test("a project's claim left by a dev that died is removed by the next claim made, another project's included", async () => {
  await inConfigDir(async (dir) => {
    const left = `${'a'.repeat(32)}.json`;
    const living = `${'b'.repeat(32)}.json`;
    // What a killed `scenario run --start` leaves: a claim of an in-memory emulator no dev will run against again.
    await writeClaim(dir, `dev-sessions/${'a'.repeat(32)}`, {
      pid: await pidOfEndedProcess(),
      project: '/killed',
      claim: 'x',
    });
    // A living dev's claim stays.
    await writeClaim(dir, `dev-sessions/${'b'.repeat(32)}`, {
      pid: process.ppid,
      project: '/running',
      claim: 'y',
    });
    const project = await tempDir('plugsmith-claims-project-');
    const claim = await claimProjectPlugin(join(project, 'plugsmith.json'), 'store-1');
    expect('heldBy' in claim).toBe(false);
    const names = await readdir(join(dir, 'dev-sessions'));
    expect(names).not.toContain(left);
    expect(names).toContain(living);
    expect(names).toHaveLength(2);
    if (!('heldBy' in claim)) await claim.release();
    expect(await readdir(join(dir, 'dev-sessions'))).toEqual([living]);
  });
});

test.runIf(process.platform === 'linux')(
  'on Linux a claim names its process exactly (boot and start ticks), whatever the clock did: the same process holds it, another start or another boot does not',
  async () => {
    await inConfigDir(async (dir) => {
      const boot = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
      const stat = await readFile(`/proc/${process.ppid}/stat`, 'utf8');
      const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
      // Claimed "in 2001" by the wall clock (a clock stepped since), by this very living process: held.
      await writeClaim(dir, 'plugin-ports/40130', {
        pid: process.ppid,
        project: '/alive',
        claim: 'a',
        claimedAt: '2001-01-01T00:00:00.000Z',
        boot,
        startTicks,
      });
      expect(await claimPort(40130, '/projects/a')).toMatchObject({
        heldBy: { pid: process.ppid, project: '/alive' },
      });
      // The same pid started at another time (reused), or in another boot: stale, taken over.
      for (const [port, other] of [
        [40131, { boot, startTicks: startTicks + 1 }],
        [40132, { boot: '00000000-0000-0000-0000-000000000000', startTicks }],
      ] as const) {
        await writeClaim(dir, `plugin-ports/${port}`, {
          pid: process.ppid,
          project: '/reused',
          claim: 'b',
          ...other,
        });
        const taken = await claimPort(port, '/projects/a');
        expect('heldBy' in taken, JSON.stringify(taken)).toBe(false);
        await (taken as PortClaim).release();
      }
      // What this process writes names it the same way.
      const mine = await claimPort(40133, '/projects/mine');
      const written = JSON.parse(await readFile(join(dir, 'plugin-ports', '40133.json'), 'utf8'));
      expect(written).toMatchObject({ pid: process.pid, boot, startTicks: expect.any(Number) });
      await (mine as PortClaim).release();
    });
  },
);
