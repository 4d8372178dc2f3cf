import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, UserError } from '../errors.js';

/** The file `npm publish` writes into dist/ (through `.ci/pack.js`): the running plugsmith is a registry release. */
export const RELEASE_MARK = 'dist/release.json';

/** Where a project keeps a vendored plugsmith, relative to the project. */
export const VENDOR_DIR = 'vendor';

/** How a generated project depends on plugsmith. */
export interface PlugsmithDependency {
  /** The version of the running plugsmith. */
  version: string;
  /** The value of `dependencies.plugsmith` in the project's package.json. */
  spec: string;
  /** The packed plugsmith inside the project (`vendor/plugsmith-<version>.tgz`), when not a registry release. */
  vendored: string | null;
}

/**
 * Whether the plugsmith at `root` is a release the npm registry serves: only `npm publish` of a
 * version that is not a prerelease leaves the mark, naming that version. A checkout, a link to one,
 * a tarball from `npm pack` and a prerelease have none.
 */
export function isRegistryRelease(root: string, version: string): boolean {
  if (version.includes('-')) return false;
  const mark = join(root, RELEASE_MARK);
  if (!existsSync(mark)) return false;
  try {
    return (JSON.parse(readFileSync(mark, 'utf8')) as { version?: unknown }).version === version;
  } catch {
    return false;
  }
}

/**
 * The dependency a project written by the plugsmith at `root` gets: `^<version>` for a registry
 * release; otherwise that plugsmith, packed into the project's vendor/ folder and referenced as
 * `file:`, so the project's `npm install` resolves on this machine.
 */
export async function plugsmithDependency(root: string, version: string, projectDir: string): Promise<PlugsmithDependency> {
  if (isRegistryRelease(root, version)) return { version, spec: `^${version}`, vendored: null };
  const vendored = `${VENDOR_DIR}/plugsmith-${version}.tgz`;
  await packInto(root, join(projectDir, VENDOR_DIR));
  if (!existsSync(join(projectDir, vendored))) throw new Error(`npm pack did not write ${vendored} into ${projectDir}`);
  return { version, spec: `file:${vendored}`, vendored };
}

/**
 * `npm pack` of the plugsmith at `root` into `destination`. Its lifecycle scripts are skipped: the
 * running plugsmith is built already, and an installed copy has no build tools (nor `.ci/pack.js`).
 */
async function packInto(root: string, destination: string): Promise<void> {
  await mkdir(destination, { recursive: true });
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', destination];
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    // npm is npm.cmd on Windows, which only a shell runs (so paths are quoted there).
    const windows = process.platform === 'win32';
    const child = spawn('npm', windows ? args.map((a) => `"${a}"`) : args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], shell: windows });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new UserError('plugsmith init needs npm to pack this plugsmith (not a registry release) into the project: install npm, or run a released plugsmith', EXIT.UNEXPECTED) : error),
    );
    child.on('close', (code) => resolve({ code, output }));
  });
  if (code !== 0) {
    const last = output.trim().split('\n').slice(-5).join('\n');
    throw new UserError(`npm pack of plugsmith (in ${root}) into ${destination} failed (exit ${code}):\n${last}`, EXIT.UNEXPECTED);
  }
}
