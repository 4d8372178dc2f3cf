import { watch } from 'chokidar';
import { lstatSync, realpathSync } from 'node:fs';
import { extname, relative, sep } from 'node:path';

/** Folders whose files are never the plugin's sources (dependencies, state, caches). */
const IGNORED = new Set(['node_modules', '__pycache__', 'venv', 'dist', 'build', 'target']);
const DEBOUNCE_MS = 250;

/** Whether a path segment is a folder not to watch: a known one, or hidden (`.git`, `.venv`, `.data`, `.plugsmith`). */
function ignored(part: string): boolean {
  return IGNORED.has(part) || part.startsWith('.');
}

/**
 * Watches a project for changes to files of the given kinds (`*.py`), debounced. chokidar watches
 * folders, not files: a file replaced by renaming a new one over it (`sed -i`, an editor's atomic
 * save) is seen on every save, where Node 20's recursive `fs.watch` on Linux loses it after the
 * first. Ignored folders are never entered (a virtualenv would cost thousands of inotify watches);
 * a subfolder created later is watched too. Symbolic links are not followed: a link out of the project
 * (a dependency linked in, `lib -> /etc`) would cost a watch per folder behind it and restart the plugin
 * on changes that are not its sources; a link to a folder inside the project changes nothing, as that
 * folder is watched where it is.
 */
export function watchSources(
  root: string,
  patterns: string[],
  onChange: (file: string) => void,
  onError: (message: string) => void,
): { ready: Promise<void>; close(): void } {
  const extensions = new Set(patterns.map((p) => p.replace(/^\*/, '')));
  // Not following links, a project folder reached through one would be watched as the link alone.
  const realRoot = realpathOrSame(root);
  let timer: NodeJS.Timeout | null = null;
  const insideIgnored = (path: string): boolean => {
    const inside = relative(realRoot, path);
    return inside !== '' && inside.split(sep).some(ignored);
  };
  const watcher = watch(realRoot, {
    ignoreInitial: true,
    // A link to a file is skipped too: watching it would watch the file it points to, wherever that is.
    ignored: (path) => insideIgnored(path) || isLink(path),
    followSymlinks: false,
  });
  watcher.on('all', (event, path) => {
    if (event === 'addDir' || event === 'unlinkDir') return;
    if (!extensions.has(extname(path))) return;
    const file = relative(realRoot, path);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => onChange(file), DEBOUNCE_MS);
  });
  watcher.on('error', (error) =>
    onError(
      `cannot watch ${root} (the plugin may not restart on a change): ${(error as Error).message}`,
    ),
  );
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    /** Resolves once the existing folders are watched (changes before then may be missed). */
    ready,
    close() {
      if (timer) clearTimeout(timer);
      void watcher.close();
    },
  };
}

function realpathOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
