import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The dashboard's built files, by the name they are served under, with their content types. */
export const DASHBOARD_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
} as const;
export type DashboardFile = keyof typeof DASHBOARD_FILES;

let root: string | null | undefined;

/** The package's root (whose package.json names plugsmith), found from this module wherever it runs: source or `dist/`. */
function packageRoot(): string | null {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if (
          (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'plugsmith'
        ) {
          root = dir;
          return root;
        }
      } catch {
        // not ours; keep climbing
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      root = null;
      return root;
    }
    dir = parent;
  }
}

/** The folder of the built dashboard (`dist/dashboard` of the package). */
export function dashboardDir(): string | null {
  const base = packageRoot();
  return base && join(base, 'dist', 'dashboard');
}

/** A built file's bytes, or null when the build is missing. Read at each request: `npm run build` while running is picked up. */
export async function readDashboardFile(
  name: DashboardFile,
  dir: string | null = dashboardDir(),
): Promise<Buffer | null> {
  if (!dir) return null;
  return readFile(join(dir, name)).catch(() => null);
}
