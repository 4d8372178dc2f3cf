// npm's pack lifecycle for plugsmith: `prepack` and `postpack` (npm pack, npm publish).
//
// prepack builds dist/ whenever it runs in a checkout with the build tools installed (tsup
// resolvable, src/ present), so a tarball never ships a dist/ older than the sources (a checkout
// not rebuilt after `git pull`). Only where the tools are absent (an installed copy, which has no
// src/ and no devDependencies) does it pack the dist/ it finds, and it fails when there is none.
// `plugsmith init` runs `npm pack --ignore-scripts`, so its packs never build. prepack then
// writes dist/release.json, the mark by which `plugsmith init` knows it runs a release the npm
// registry serves, only under `npm publish` of a version that is not a prerelease; any other pack
// (npm pack, a tarball, a prerelease) ships without it, so `init` vendors that plugsmith into the
// project instead. postpack removes the mark again, so the checkout that published never passes
// for a release itself.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const phase = process.argv[2];
const MARK = 'dist/release.json';
const BUILT = [
  'dist/cli.js',
  'dist/emulator/index.js',
  'dist/emulator/index.d.ts',
  'dist/client/index.d.ts',
  'dist/webhooks/index.d.ts',
];

if (phase === 'prepack') {
  if (canBuild()) {
    // Through the npm that runs this script; the build's output goes to stderr, so `npm pack --json` stays JSON.
    const npm = process.env.npm_execpath;
    execFileSync(npm ? process.execPath : 'npm', [...(npm ? [npm] : []), 'run', 'build'], {
      stdio: ['ignore', 2, 2],
      shell: !npm && process.platform === 'win32',
    });
  } else if (!BUILT.every((file) => existsSync(file))) {
    console.error(
      'plugsmith: dist/ is missing and cannot be built here (no src/ or no tsup): run `npm ci` in a checkout, then pack again',
    );
    process.exit(1);
  }
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  if (process.env.npm_command === 'publish' && !version.includes('-'))
    writeFileSync(MARK, JSON.stringify({ version }) + '\n');
  else rmSync(MARK, { force: true });
} else if (phase === 'postpack') {
  rmSync(MARK, { force: true });
} else {
  console.error('usage: node .ci/pack.js prepack|postpack');
  process.exitCode = 2;
}

/** A checkout with its build tools: the sources and the config are here, and tsup resolves from here. */
function canBuild() {
  if (!existsSync('src') || !existsSync('tsup.config.ts')) return false;
  try {
    createRequire(join(process.cwd(), 'package.json')).resolve('tsup/package.json');
    return true;
  } catch {
    return false;
  }
}
