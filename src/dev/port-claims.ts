import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { alive } from '../config/emulators.js';
import { configDir } from '../config/paths.js';

// Ports that a running `plugsmith dev` chose for its plugin, claimed in the per-user state beside the emulators'
// state files (`<config dir>/plugin-ports/<port>.json`), before the plugin listens: two `dev` started in the same
// second (a monorepo's `npm run dev --workspaces`) would otherwise both find the default port free. A claim is made by
// hard-linking a complete file to its name, which fails when the name exists: of two processes racing, one claims.
// A claim whose process is gone (dev killed) is stale and taken over.
// The same claim holds a project's plugin on one emulator (`dev-sessions/<hash>.json`): a second `dev` in the project,
// against the same emulator, would deploy the plugin's webhook to its own port and take every delivery from the first.

/** Who holds a port's claim. */
export interface PortHolder {
  pid: number;
  project: string | null;
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
  const mine: ClaimFile = {
    pid: process.pid,
    project,
    claim: randomBytes(8).toString('hex'),
    claimedAt: new Date().toISOString(),
  };
  const draft = `${path}.${process.pid}.${mine.claim}`;
  await writeFile(draft, JSON.stringify(mine) + '\n', { mode: 0o600 });
  try {
    for (let tries = 0; tries < 5; tries++) {
      try {
        await link(draft, path);
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
      if (holder && alive(holder.pid))
        return { heldBy: { pid: holder.pid, project: holder.project } };
      await takeOverStale(path);
    }
    return { heldBy: { pid: -1, project: null } };
  } finally {
    await rm(draft, { force: true });
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
  if (claim && alive(claim.pid)) await link(moved, path).catch(() => undefined);
  await rm(moved, { force: true });
}
