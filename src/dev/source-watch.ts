import { watch, type FSWatcher } from 'node:fs';
import { extname, sep } from 'node:path';

/** Folders whose files are never the plugin's sources (dependencies, state, caches). */
const IGNORED = new Set(['node_modules', '.git', '.data', '.plugsmith', '__pycache__', '.venv', 'venv', 'dist']);
const DEBOUNCE_MS = 250;

/**
 * Watches a project folder and its subfolders for changes to files of the given kinds (`*.py`),
 * for a plugin whose command does not restart itself on a change (a Python plugin; `tsx watch`
 * does it for the TypeScript template). Saves in quick succession call `onChange` once, with the
 * last file changed (relative to `root`).
 */
export function watchSources(root: string, patterns: string[], onChange: (file: string) => void, onError: (message: string) => void): { close(): void } {
  const extensions = new Set(patterns.map((p) => p.replace(/^\*/, '')));
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(root, { recursive: true }, (_event, name) => {
      if (name === null || !extensions.has(extname(name))) return;
      if (name.split(sep).some((part) => IGNORED.has(part) || part.startsWith('.'))) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => onChange(name), DEBOUNCE_MS);
    });
    watcher.on('error', (error) => onError(`cannot watch ${root}: ${error.message}`));
  } catch (error) {
    onError(`cannot watch ${root} (the plugin is not restarted on changes): ${(error as Error).message}`);
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
