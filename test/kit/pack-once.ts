import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

// vitest globalSetup of the full run (after run-setup.ts, which gives the run its own cache folder):
// packs this checkout once, into that cache, where every `plugsmith init` of the run finds it
// (src/project/dependency.ts keys the cached tarball by the files it holds). Without it, the first
// inits of two workers would each run `npm pack`. The tarball's path is provided as `plugsmithPack`.

declare module 'vitest' {
  export interface ProvidedContext {
    /** The tarball of this checkout that `npm pack` made for the run (in the run's cache). */
    plugsmithPack: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');

export default async function setup(project: TestProject): Promise<void> {
  // `npm test` builds first; a run of chosen files without a build fails in those files, not here.
  if (!existsSync(join(ROOT, 'dist/cli.js'))) return;
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const { cachedPackPath, packFingerprint, plugsmithDependency } = await import(
    '../../src/project/dependency.js'
  );
  const scratch = await mkdtemp(join(tmpdir(), 'plugsmith-pack-once-'));
  try {
    await plugsmithDependency(ROOT, version, scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  project.provide('plugsmithPack', cachedPackPath(version, await packFingerprint(ROOT, version)));
}
