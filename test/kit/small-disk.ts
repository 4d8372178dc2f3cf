import { execFileSync } from 'node:child_process';
import fs, { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A folder whose disk can be filled up and freed again, for tests of a full disk. */
export interface SmallDisk {
  dir: string;
  /** How the disk is full: a real 3 MiB tmpfs, or (where mounting is not allowed) writes refused with ENOSPC in node:fs. */
  kind: 'tmpfs' | 'injected';
  /** Fills the disk: from now on writes under `dir` fail with ENOSPC. */
  fill(): void;
  /** Frees what fill() took. */
  free(): void;
  /** Unmounts (or restores node:fs) and removes the folder. */
  remove(): void;
}

function noSpace(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), {
    code: 'ENOSPC',
    errno: -28,
    syscall: 'write',
    path,
  });
}

/**
 * A 3 MiB tmpfs mounted on a new folder (root may mount one here and in CI). Where mounting is not
 * allowed (a container without CAP_SYS_ADMIN), the same folder with node:fs's write paths (write
 * streams and opened files, which the journal, the snapshot and the embedded object store use)
 * refusing every write under it with ENOSPC while "full": the injected error, said in `kind`.
 */
export function smallDisk(): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'plugsmith-disk-'));
  // PLUGSMITH_TEST_NO_MOUNT=1 runs the fallback where mounting works, to check it.
  if (process.env.PLUGSMITH_TEST_NO_MOUNT === '1') return injectedDisk(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0700', 'tmpfs', dir], {
      stdio: 'ignore',
    });
  } catch {
    return injectedDisk(dir);
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    kind: 'tmpfs',
    fill() {
      const fd = openSync(filler, 'w');
      const chunk = Buffer.alloc(16 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
      // The last pages: smaller writes until not one byte fits.
      const tail = openSync(filler, 'a');
      try {
        for (;;) writeSync(tail, Buffer.alloc(512, 1));
      } catch {
        // full
      } finally {
        closeSync(tail);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    remove() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function injectedDisk(dir: string): SmallDisk {
  let full = false;
  const under = (path: unknown) =>
    full && typeof path === 'string' && resolve(path).startsWith(dir + '/');
  const writing = (flags: unknown) => typeof flags === 'string' && /[wa+]/.test(flags);
  const { createWriteStream } = fs;
  const { open } = fsPromises;
  fs.createWriteStream = ((path: string, options?: Parameters<typeof createWriteStream>[1]) => {
    const stream = createWriteStream(path, options);
    if (under(path)) stream.destroy(noSpace(path));
    return stream;
  }) as typeof createWriteStream;
  // Files opened under the folder before it filled (the journal) fail their writes and syncs while it is full.
  const opened = new WeakMap<object, string>();
  const refusedWhileFull = ['write', 'datasync', 'sync'] as const;
  let handlePrototype: Record<string, unknown> | null = null;
  const originals: unknown[] = [];
  const refuseWritesWhileFull = (prototype: Record<string, unknown>) => {
    handlePrototype = prototype;
    for (const name of refusedWhileFull) {
      const original = prototype[name] as (...args: unknown[]) => Promise<unknown>;
      originals.push(original);
      prototype[name] = function (this: object, ...args: unknown[]) {
        const path = opened.get(this);
        if (full && path) return Promise.reject(noSpace(path));
        return original.apply(this, args);
      };
    }
  };
  fsPromises.open = (async (path: string, flags?: string, mode?: number) => {
    if (under(path) && writing(flags)) throw noSpace(path);
    const handle = await open(path, flags, mode);
    if (typeof path === 'string' && resolve(path).startsWith(dir + '/')) {
      if (!handlePrototype) refuseWritesWhileFull(Object.getPrototypeOf(handle));
      opened.set(handle, resolve(path));
    }
    return handle;
  }) as typeof open;
  syncBuiltinESMExports();
  return {
    dir,
    kind: 'injected',
    fill: () => (full = true),
    free: () => (full = false),
    remove() {
      fs.createWriteStream = createWriteStream;
      fsPromises.open = open;
      syncBuiltinESMExports();
      const prototype = handlePrototype;
      if (prototype) {
        refusedWhileFull.forEach((name, i) => {
          prototype[name] = originals[i];
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
