import { watch } from 'chokidar';
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
 * a subfolder created later is watched too.
 */
export function watchSources(
  root: string,
  patterns: string[],
  onChange: (file: string) => void,
  onError: (message: string) => void,
): { ready: Promise<void>; close(): void } {
  const extensions = new Set(patterns.map((p) => p.replace(/^\*/, '')));
  let timer: NodeJS.Timeout | null = null;
  const insideIgnored = (path: string): boolean => {
    const inside = relative(root, path);
    return inside !== '' && inside.split(sep).some(ignored);
  };
  const watcher = watch(root, {
    ignoreInitial: true,
    ignored: insideIgnored,
  });
  watcher.on('all', (event, path) => {
    if (event === 'addDir' || event === 'unlinkDir') return;
    if (!extensions.has(extname(path))) return;
    const file = relative(root, path);
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
