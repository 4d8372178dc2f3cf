import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { alive } from '../config/emulators.js';
import { configDir } from '../config/paths.js';

// Ports that a running `plugsmith dev` chose for its plugin, claimed in the per-user state beside the emulators'
// state files (`<config dir>/plugin-ports/<port>.json`), before the plugin listens: two `dev` started in the same
// second (a monorepo's `npm run dev --workspaces`) would otherwise both find the default port free. A claim is made by
// hard-linking a complete file to its name, which fails when the name exists: of two processes racing, one claims.
// A claim whose process is gone (dev killed) is stale and taken over, and so is one whose pid now names another process:
// after a reboot, or a container's restart with a persistent home, the pid of the dev that claimed may be any process's.
// The same claim holds a project's plugin on one emulator (`dev-sessions/<hash>.json`): a second `dev` in the project,
// against the same emulator, would deploy the plugin's webhook to its own port and take every delivery from the first.

/** Who holds a port's claim. */
export interface PortHolder {
  pid: number;
  project: string | null;
  /** The claim's file: a person who knows no such dev runs may delete it. */
  file?: string;
}

/** Something this process claimed; release() gives it back (a claim of another is never removed). */
export interface Claim {
  release(): Promise<void>;
}

/** A port this process claimed. */
export interface PortClaim extends Claim {
  port: number;
}

interface ClaimFile extends PortHolder {
  /** Tells two claims of one process apart (two sessions, or a claim released and made again). */
  claim: string;
  claimedAt: string;
  /** Where Linux's /proc tells: the boot the claim was made in, and its process's start (clock ticks since that boot). */
  boot?: string;
  startTicks?: number;
}

/** This boot's id (Linux: /proc/sys/kernel/random/boot_id), or null where the system does not tell. */
async function bootId(): Promise<string | null> {
  return readFile('/proc/sys/kernel/random/boot_id', 'utf8')
    .then((id) => id.trim() || null)
    .catch(() => null);
}

/** When the process `pid` started, in clock ticks since boot (Linux's /proc/<pid>/stat), or null. */
async function startTicksOf(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or parentheses: fields count after its last ')'.
    // Field 22, starttime, is the 20th after the command name.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of Linux's /proc/<pid>/stat (USER_HZ: 100 on every architecture Node runs on). */
const USER_HZ = 100;

/**
 * A clock step between a claim and its check (NTP at boot) must not make a living holder's claim look stale: a process
 * counts as started after its claim only when it started more than this after it.
 */
const CLOCK_SLACK_MS = 2_000;

/**
 * When the process `pid` started (ms since the epoch), from Linux's /proc (`btime` of /proc/stat and the start time of
 * /proc/<pid>/stat); null where there is no /proc or it cannot be read.
 */
async function processStartedAt(pid: number): Promise<number | null> {
  const [ticks, system] = await Promise.all([
    startTicksOf(pid),
    readFile('/proc/stat', 'utf8').catch(() => ''),
  ]);
  const bootSeconds = Number(/^btime (\d+)$/m.exec(system)?.[1]);
  if (ticks === null || !Number.isFinite(bootSeconds)) return null;
  return bootSeconds * 1000 + (ticks / USER_HZ) * 1000;
}

/**
 * Whether a claim's dev is gone: its pid names no process, or another process than the one that claimed. A claim made
 * where /proc tells names its process exactly (the boot, and the process's start in clock ticks since it): another boot,
 * or another start of that pid, is another process (a reboot, a restarted container's pid reused), whatever the clock
 * did meanwhile. A claim without them (another system, an older plugsmith) is judged by the wall clock: this process's
 * start (performance.timeOrigin), or another's from /proc/stat's boot time, later than the claim.
 */
async function isStale(claim: ClaimFile): Promise<boolean> {
  if (!alive(claim.pid)) return true;
  if (typeof claim.boot === 'string' && typeof claim.startTicks === 'number') {
    const boot = await bootId();
    if (boot !== null) {
      if (boot !== claim.boot) return true;
      const ticks = await startTicksOf(claim.pid);
      return ticks !== null && ticks !== claim.startTicks;
    }
  }
  const claimedAt = Date.parse(claim.claimedAt);
  if (Number.isNaN(claimedAt)) return false;
  const startedAt =
    claim.pid === process.pid ? performance.timeOrigin : await processStartedAt(claim.pid);
  return startedAt !== null && startedAt > claimedAt + CLOCK_SLACK_MS;
}

async function readClaim(path: string): Promise<ClaimFile | null> {
  const claim = (await readFile(path, 'utf8')
    .then(JSON.parse)
    .catch(() => null)) as ClaimFile | null;
  return typeof claim?.pid === 'number' ? claim : null;
}

/** Claims `port` for this process's plugin; the holder when another living process claimed it. */
export async function claimPort(
  port: number,
  project: string | null,
): Promise<PortClaim | { heldBy: PortHolder }> {
  const claim = await claimName('plugin-ports', String(port), project);
  return 'heldBy' in claim ? claim : { port, release: claim.release };
}

/**
 * Claims a project's plugin on one emulator (`target`: manifest/state.ts's targetKey) for this process's `dev`; the
 * holder when another living `dev` has it. The project is its folder, links resolved (its deploy state is the folder's
 * `.plugsmith/state.json`, whichever manifest of the folder dev runs, through whichever path).
 */
export async function claimProjectPlugin(
  manifestPath: string,
  target: string,
): Promise<Claim | { heldBy: PortHolder }> {
  const folder = dirname(resolve(manifestPath));
  const project = await realpath(folder).catch(() => folder);
  const key = createHash('sha256').update(`${project}\n${target}`).digest('hex');
  return claimName('dev-sessions', key.slice(0, 32), project);
}

/** Claims `<config dir>/<folder>/<name>.json` by hard-linking a complete file to it; the holder when it is taken. */
async function claimName(
  folder: string,
  name: string,
  project: string | null,
): Promise<Claim | { heldBy: PortHolder }> {
  const dir = join(configDir(), folder);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${name}.json`);
  const [boot, startTicks] = await Promise.all([bootId(), startTicksOf(process.pid)]);
  const mine: ClaimFile = {
    pid: process.pid,
    project,
    claim: randomBytes(8).toString('hex'),
    claimedAt: new Date().toISOString(),
    ...(boot !== null && startTicks !== null ? { boot, startTicks } : {}),
  };
  const draft = `${path}.${process.pid}.${mine.claim}`;
  await writeFile(draft, JSON.stringify(mine) + '\n', { mode: 0o600 });
  try {
    for (let tries = 0; tries < 5; tries++) {
      try {
        await link(draft, path);
        await sweepStale(dir);
        return {
          release: async () => {
            const current = await readClaim(path);
            if (current?.claim === mine.claim) await rm(path, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readClaim(path);
      // A file being written (or torn) has no pid yet: look again.
      if (holder && !(await isStale(holder)))
        return { heldBy: { pid: holder.pid, project: holder.project, file: path } };
      await takeOverStale(path);
    }
    return { heldBy: { pid: -1, project: null, file: path } };
  } finally {
    await rm(draft, { force: true });
  }
}

/** How many claim files one sweep looks at: a sweep is a by-the-way tidy-up, not a job. */
const SWEEP_LIMIT = 50;

/**
 * Removes the stale claims of `dir`. A claim is given back when its dev stops, but a dev killed (SIGKILL, a closed
 * terminal) leaves it; a port's is taken over when its port is claimed again, a project's only when the same project
 * runs against the same emulator, which for an in-memory emulator (`scenario run --start`) never happens again.
 */
async function sweepStale(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => []);
  const claims = names.filter((name) => name.endsWith('.json')).slice(0, SWEEP_LIMIT);
  for (const name of claims) {
    const claim = await readClaim(join(dir, name));
    if (claim && (await isStale(claim))) await takeOverStale(join(dir, name));
  }
}

/**
 * Moves a stale claim away (rename is atomic: of two processes taking it over, one moves it). What was moved is
 * checked again: a living claim made meanwhile by another process is put back.
 */
async function takeOverStale(path: string): Promise<void> {
  const moved = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, moved);
  } catch {
    return;
  }
  const claim = await readClaim(moved);
  if (claim && !(await isStale(claim))) await link(moved, path).catch(() => undefined);
  await rm(moved, { force: true });
}
