import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EXIT, refusedPath, UserError } from '../errors.js';
import { cacheDir } from '../config/paths.js';
import { resolveWritableInside } from '../shared/project-file.js';

/** The file `npm publish` writes into dist/ (through `.ci/pack.js`): the running plugsmith is a registry release. */
const RELEASE_MARK = 'dist/release.json';

/** Where a project keeps a vendored plugsmith. */
const VENDOR_DIR = 'vendor';

/** Whether the plugsmith at `root` is a registry release: only `npm publish` of a non-prerelease leaves the mark naming it. */
function isRegistryRelease(root: string, version: string): boolean {
  if (version.includes('-')) return false;
  try {
    return (
      (JSON.parse(readFileSync(join(root, RELEASE_MARK), 'utf8')) as { version?: unknown })
        .version === version
    );
  } catch {
    return false;
  }
}

/** How a project depends on the plugsmith at `root`: `^<version>` for a registry release, else `file:` of it packed into vendor/. */
export async function plugsmithDependency(
  root: string,
  version: string,
  projectDir: string,
): Promise<{ version: string; spec: string; vendored: string | null }> {
  if (isRegistryRelease(root, version)) return { version, spec: `^${version}`, vendored: null };
  const vendored = `${VENDOR_DIR}/plugsmith-${version}.tgz`;
  // vendor/ may come with a cloned folder (`init . --force`): a vendor/ that links out of the project is refused.
  const target = await resolveWritableInside(projectDir, vendored, {
    label: 'the vendored plugsmith',
  }).catch(refusedPath);
  await packCached(root, version, dirname(target));
  if (!existsSync(join(projectDir, vendored)))
    throw new Error(`npm pack did not write ${vendored} into ${projectDir}`);
  return { version, spec: `file:${vendored}`, vendored };
}

/** What `npm pack` of the plugsmith at `root` would contain, as a digest of its files' paths, sizes and times. */
export async function packFingerprint(root: string, version: string): Promise<string> {
  const hash = createHash('sha256').update(`${await realpath(root)}\0${version}\0`);
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path).catch(() => null);
    if (!info) return;
    if (info.isDirectory()) {
      for (const name of (await readdir(path)).sort()) await visit(join(path, name));
    } else hash.update(`${path}\0${info.size}\0${info.mtimeMs}\0`);
  };
  for (const entry of [
    'package.json',
    'plugsmith.schema.json',
    'scenario.schema.json',
    'bin',
    'dist',
    'templates',
    'docs',
  ])
    await visit(join(root, entry));
  return hash.digest('hex').slice(0, 24);
}

/** The cached tarball of a plugsmith with this fingerprint. */
export function cachedPackPath(version: string, fingerprint: string): string {
  return join(cacheDir(), 'packs', `plugsmith-${version}-${fingerprint}.tgz`);
}

/** Packs the plugsmith at `root` into `destination`, cached by its files so the next `init` copies it instead of packing (seconds). */
async function packCached(root: string, version: string, destination: string): Promise<void> {
  const target = join(destination, `plugsmith-${version}.tgz`);
  // A link at the tarball's name is removed, never written through.
  await rm(target, { force: true });
  let cached: string | null = null;
  try {
    cached = cachedPackPath(version, await packFingerprint(root, version));
    await mkdir(destination, { recursive: true });
    await copyFile(cached, target);
    return;
  } catch {
    // not cached yet (or no cache): pack it
  }
  await packInto(root, destination);
  if (!cached) return;
  try {
    await mkdir(join(cacheDir(), 'packs'), { recursive: true, mode: 0o700 });
    const partial = `${cached}.${process.pid}.partial`;
    await copyFile(target, partial);
    await rename(partial, cached);
  } catch {
    // a read-only home is fine: the next init packs again
  }
}

/** `npm pack` of the plugsmith at `root`, without its scripts: it is built already, and an installed copy has no build tools. */
async function packInto(root: string, destination: string): Promise<void> {
  await mkdir(destination, { recursive: true });
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', destination];
  const { code, output } = await new Promise<{ code: number | null; output: string }>(
    (resolve, reject) => {
      // npm is npm.cmd on Windows, which only a shell runs (so paths are quoted there).
      const windows = process.platform === 'win32';
      const child = spawn('npm', windows ? args.map((a) => `"${a}"`) : args, {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: windows,
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new UserError(
                'plugsmith init needs npm to pack this plugsmith (not a registry release) into the project: install npm, or run a released plugsmith',
                EXIT.UNEXPECTED,
              )
            : error,
        ),
      );
      child.on('close', (code) => resolve({ code, output }));
    },
  );
  if (code !== 0) {
    const last = output.trim().split('\n').slice(-5).join('\n');
    throw new UserError(
      `npm pack of plugsmith (in ${root}) into ${destination} failed (exit ${code}):\n${last}`,
      EXIT.UNEXPECTED,
    );
  }
}
