// npm's pack lifecycle for plugsmith: `prepack` and `postpack` (npm pack, npm publish).
//
// prepack builds dist/ when it is missing or incomplete (a fresh clone), and leaves an existing
// build alone, so packing needs neither the network nor a rebuild; `npm publish` rebuilds first
// through `prepublishOnly`. It then writes dist/release.json, the mark by which `plugsmith init`
// knows it runs a release the npm registry serves, only under `npm publish` of a version that is
// not a prerelease; any other pack (npm pack, a tarball, a prerelease) ships without it, so
// `init` vendors that plugsmith into the project instead. postpack removes the mark again, so the
// checkout that published never passes for a release itself.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const phase = process.argv[2];
const MARK = 'dist/release.json';
const BUILT = ['dist/cli.js', 'dist/emulator/index.js', 'dist/emulator/index.d.ts', 'dist/client/index.d.ts', 'dist/webhooks/index.d.ts'];

if (phase === 'prepack') {
  if (!BUILT.every((file) => existsSync(file))) {
    // Through the npm that runs this script; the build's output goes to stderr, so `npm pack --json` stays JSON.
    const npm = process.env.npm_execpath;
    execFileSync(npm ? process.execPath : 'npm', [...(npm ? [npm] : []), 'run', 'build'], { stdio: ['ignore', 2, 2], shell: !npm && process.platform === 'win32' });
  }
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  if (process.env.npm_command === 'publish' && !version.includes('-')) writeFileSync(MARK, JSON.stringify({ version }) + '\n');
  else rmSync(MARK, { force: true });
} else if (phase === 'postpack') {
  rmSync(MARK, { force: true });
} else {
  console.error('usage: node .ci/pack.js prepack|postpack');
  process.exitCode = 2;
}
