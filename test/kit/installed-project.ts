import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { sh, userEnv, type ShellRun } from './shell.js';

// `npm install` in the projects `plugsmith init` writes. Unpacking a generated TypeScript project's
// tree (about 180 packages, 15,000 files) costs some 26 s of CPU on a 2-core machine, and the
// run installs the same tree several times: the three templates' package.json differ only in
// name and description, and every init of the run vendors the same pack of this checkout.
// So the run's first install of a tree is from nothing (npm's cache alone), and that tree is kept
// in the run's own cache folder (test/kit/run-setup.ts; removed with the run); a later project
// that asks npm for the same starts from a copy of it. npm still runs in that project: it checks
// the tree it finds against the project's package.json and writes the project's own
// package-lock, the one an install from nothing writes (6 s of CPU).

const MINUTES = 60_000;

/** Where the run keeps the trees it installed, by what the project asked npm for. */
function store(): string {
  return join(process.env.XDG_CACHE_HOME ?? tmpdir(), 'plugsmith-test-installs');
}

/**
 * What `npm install` in a project depends on, as a key: its package.json but for its name and
 * description, and the bytes of what it vendors (init's pack of plugsmith in vendor/).
 */
export async function whatNpmIsAskedFor(dir: string): Promise<string> {
  const {
    name: _name,
    description: _description,
    ...asked
  } = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  const hash = createHash('sha256').update(JSON.stringify(asked));
  const vendor = join(dir, 'vendor');
  const vendored = existsSync(vendor) ? (await readdir(vendor)).sort() : [];
  for (const file of vendored)
    hash.update(`\0${file}\0`).update(await readFile(join(vendor, file)));
  return hash.digest('hex');
}

/**
 * `npm install <args>` in the project `dir` (a person's environment, `env` on top): its output.
 * The project starts from a copy of the tree the run installed for the same package.json and
 * vendored files, if there is one; after an install from nothing, its tree is kept for the next.
 */
export async function npmInstall(
  dir: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ShellRun> {
  const kept = join(store(), await whatNpmIsAskedFor(dir));
  const fromCopy = existsSync(kept);
  if (fromCopy) {
    const copy = await sh('cp', ['-a', kept, join(dir, 'node_modules')], dir, 2 * MINUTES);
    expect(copy.code, copy.output).toBe(0);
  }
  const install = await sh(
    'npm',
    ['install', ...args],
    dir,
    options.timeoutMs ?? 8 * MINUTES,
    options.env ?? userEnv(),
  );
  if (install.code === 0 && !fromCopy && !existsSync(kept)) await keep(dir, kept);
  return install;
}

/** Copies the project's fresh tree to `kept`; when two workers race, the first one there stays. */
async function keep(dir: string, kept: string): Promise<void> {
  await mkdir(store(), { recursive: true });
  const staging = `${kept}.${process.pid}.${Date.now()}`;
  const copy = await sh('cp', ['-a', join(dir, 'node_modules'), staging], dir, 2 * MINUTES);
  expect(copy.code, copy.output).toBe(0);
  try {
    await rename(staging, kept);
  } catch {
    // Another worker kept the same tree first.
    await rm(staging, { recursive: true, force: true });
  }
}
