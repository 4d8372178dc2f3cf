import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { extname, join, sep } from 'node:path';

/** Folders whose files are never the plugin's sources (dependencies, state, caches). */
const IGNORED = new Set(['node_modules', '__pycache__', 'venv', 'dist', 'build', 'target']);
const DEBOUNCE_MS = 250;

/** Whether a path segment is a folder not to watch: a known one, or hidden (`.git`, `.venv`, `.data`, `.plugsmith`). */
function ignored(part: string): boolean {
  return IGNORED.has(part) || part.startsWith('.');
}

/**
 * Watches a project for changes to files of the given kinds (`*.py`), debounced. Ignored folders are left out (a recursive
 * watch of a virtualenv costs thousands of inotify watches); a subfolder created later is not watched.
 */
export function watchSources(
  root: string,
  patterns: string[],
  onChange: (file: string) => void,
  onError: (message: string) => void,
): { close(): void } {
  const extensions = new Set(patterns.map((p) => p.replace(/^\*/, '')));
  let timer: NodeJS.Timeout | null = null;
  const watchers: FSWatcher[] = [];
  const changed = (prefix: string) => (_event: string, name: string | null) => {
    if (
      name === null ||
      !extensions.has(extname(name)) ||
      name.split(sep).slice(0, -1).some(ignored)
    )
      return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => onChange(prefix + name), DEBOUNCE_MS);
  };
  const add = (folder: string, prefix: string, recursive: boolean) => {
    try {
      const watcher = watch(folder, { recursive }, changed(prefix));
      watcher.on('error', (error) => onError(`cannot watch ${folder}: ${error.message}`));
      watchers.push(watcher);
    } catch (error) {
      onError(
        `cannot watch ${folder} (the plugin is not restarted on its changes): ${(error as Error).message}`,
      );
    }
  };
  add(root, '', false);
  try {
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      if (entry.isDirectory() && !ignored(entry.name))
        add(join(root, entry.name), entry.name + sep, true);
    }
  } catch (error) {
    onError(`cannot list ${root}: ${(error as Error).message}`);
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
