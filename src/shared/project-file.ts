import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * The one rule for every path that a file or a stranger names (a scenario's `addFile.path`, a recording's output, an MCP
 * tool's argument): the path is resolved to its real path (symlinks followed), it must stay inside its root (the project
 * folder), a file read must be a regular file, opened without blocking (a FIFO never hangs the reader) and no larger than
 * a cap, and a file written replaces whatever link stands at its name instead of following it.
 */

/** A path that the rule refuses; `fix` says what to do instead. */
export class ProjectPathError extends Error {
  constructor(
    message: string,
    readonly fix: string,
    /** The path names nothing (as opposed to something outside the project, or not a regular file). */
    readonly missing = false,
  ) {
    super(message);
    this.name = 'ProjectPathError';
  }
}

export type ProjectPathOptions = {
  /** The folder a relative path is resolved from (default: the root). It is itself kept inside the root. */
  base?: string;
  /** What the path is, for messages ("addFile.path", "the recording's output"). */
  label?: string;
};

export type ReadProjectFileOptions = ProjectPathOptions & {
  /** The largest file accepted, in bytes. */
  maxBytes: number;
  /** Refuse a file under the project's .plugsmith/ (the emulator's store and secrets): for paths a file of the project names. */
  refuseEmulatorFiles?: boolean;
};

/** The folder of a project that holds the emulator's own files: its store, its storage secret, the dashboard's sessions. */
export const EMULATOR_FOLDER = '.plugsmith';

/** Whether `real` (a real path inside the real `root`) lies under the root's EMULATOR_FOLDER. */
export function isEmulatorFile(root: string, real: string): boolean {
  return relative(root, real).split(sep)[0] === EMULATOR_FOLDER;
}

/** True when `path` is `root` or lies below it (both real, absolute paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The real path of `path` (relative to `options.base`, default `root`), which must exist and lie inside `root` once every
 * link in it is followed.
 */
export async function resolveExistingInside(
  root: string,
  path: string,
  options: ProjectPathOptions = {},
): Promise<string> {
  const label = options.label ?? 'the path';
  const realRoot = await realpath(root);
  const target = resolve(options.base ?? root, path);
  // Outside as written (absolute, or up through ..): one answer whether it exists or not, and no word of where it leads,
  // so that the answer tells nothing of what is out there. (Another name of the project's folder, /tmp for /private/tmp,
  // is inside all the same.)
  if (!isInside(resolve(root), target) && !isInside(realRoot, target)) {
    const real = await realpath(target).catch(() => null);
    if (real === null || !isInside(realRoot, real))
      throw new ProjectPathError(
        `${label} ${JSON.stringify(path)} leads outside the project`,
        `name a file inside ${realRoot}`,
      );
  }
  let real: string;
  try {
    real = await realpath(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ProjectPathError(
        `${label} ${JSON.stringify(path)} does not exist`,
        `name a file inside ${realRoot}`,
        true,
      );
    }
    throw error;
  }
  if (!isInside(realRoot, real)) {
    throw new ProjectPathError(
      `${label} ${JSON.stringify(path)} leads outside the project (to ${real})`,
      `name a file inside ${realRoot}; links that lead out of it are refused`,
    );
  }
  return real;
}

/**
 * Reads a regular file inside `root`: the real path must stay inside it, the file is opened without blocking and without
 * following a link at its last component, and it is refused when it is not a regular file or grows past `maxBytes`.
 */
export async function readProjectFile(
  root: string,
  path: string,
  options: ReadProjectFileOptions,
): Promise<Buffer> {
  const label = options.label ?? 'the path';
  const real = await resolveExistingInside(root, path, options);
  if (options.refuseEmulatorFiles && isEmulatorFile(await realpath(root), real)) {
    throw new ProjectPathError(
      `${label} ${JSON.stringify(path)} is under ${EMULATOR_FOLDER}/, the emulator's own files (its store and secrets)`,
      'name a file of the project elsewhere: a scenario never reads the emulator’s files',
    );
  }
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer; fstat then refuses it.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new ProjectPathError(
        `${label} ${JSON.stringify(path)} is not a regular file`,
        'name a regular file (not a folder, a FIFO, a socket or a device)',
      );
    }
    const tooLarge = new ProjectPathError(
      `${label} ${JSON.stringify(path)} is larger than ${options.maxBytes} bytes`,
      `name a file of at most ${options.maxBytes} bytes`,
    );
    if (stats.size > options.maxBytes) throw tooLarge;
    // Read at most one byte past the cap: a file that grows while it is read is still bounded.
    const buffer = Buffer.alloc(Math.min(stats.size, options.maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > options.maxBytes) throw tooLarge;
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The path to write `path` at (relative to `options.base`, default `root`): its folder, once every link in it is followed,
 * must lie inside `root`. Missing folders are created only after the deepest existing one is checked, so a linked folder
 * never gets folders made outside the root.
 */
export async function resolveWritableInside(
  root: string,
  path: string,
  options: ProjectPathOptions = {},
): Promise<string> {
  const label = options.label ?? 'the path';
  const realRoot = await realpath(root);
  const target = resolve(options.base ?? root, path);
  const folder = dirname(target);
  let existing = folder;
  const missing: string[] = [];
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(existing) === existing)
        throw error;
      missing.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  if (!isInside(realRoot, existing)) {
    throw new ProjectPathError(
      `${label} ${JSON.stringify(path)} leads outside the project (its folder is ${existing})`,
      `write inside ${realRoot}; links that lead out of it are refused`,
    );
  }
  const realFolder = join(existing, ...missing);
  if (missing.length > 0) await mkdir(realFolder, { recursive: true });
  return join(realFolder, basename(target));
}

/** Writes a file inside `root` (see {@link resolveWritableInside}), replacing a link at its name, never following it. */
export async function writeProjectFile(
  root: string,
  path: string,
  data: string | Uint8Array,
  options: ProjectPathOptions = {},
): Promise<string> {
  const target = await resolveWritableInside(root, path, options);
  await writeFileReplacingLink(target, data);
  return target;
}

/**
 * Writes `path` whole through a new file renamed over it: a link planted at the name (dangling or not) is replaced by the
 * file instead of being followed, so the write never lands elsewhere. For outputs a person names on the command line
 * (`--junit`, `record -o`), which may lie anywhere they choose.
 */
export async function writeFileReplacingLink(
  path: string,
  data: string | Uint8Array,
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // A folder at the name cannot be replaced by a file: say so rather than fail in rename.
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new ProjectPathError(`${path} is a folder`, 'name a file to write');
  }
  const file = await open(temporary, 'wx', 0o644);
  try {
    try {
      await file.writeFile(data);
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
