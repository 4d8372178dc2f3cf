import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The two tiers of the suite (vitest.config.ts). `npm test` runs every test file; `npm run
// test:quick` only the files that run in this process: not those that start processes (the CLI
// as a child process, npm, a pseudo-terminal, a crash child) or a browser. A file is of the process
// tier when a module it imports, directly or through other test helpers, imports node:child_process,
// @lydell/node-pty or playwright-core; no list to keep up to date. The test kit keeps its spawning parts (kit/spawn.ts, kit/terminal.ts)
// apart from the rest for that reason. So is a file that runs `plugsmith init`, even in this
// process: init packs this checkout with npm.

const STARTS_PROCESSES =
  /from ['"](node:child_process|child_process|@lydell\/node-pty|playwright-core)['"]|\[\s*'init'\s*,/;
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The test files (relative to `root`) that start processes or a browser, directly or through their helpers. */
export function processTestFiles(root: string): string[] {
  const testDir = join(root, 'test');
  const verdicts = new Map<string, boolean>();
  const startsProcesses = (file: string, visiting: Set<string>): boolean => {
    const known = verdicts.get(file);
    if (known !== undefined) return known;
    if (visiting.has(file)) return false;
    visiting.add(file);
    const text = readFileSync(file, 'utf8');
    let verdict = STARTS_PROCESSES.test(text);
    for (const [, spec] of text.matchAll(RELATIVE_IMPORT)) {
      if (verdict) break;
      const target = resolveModule(resolve(dirname(file), spec!));
      // Only the suite's own helpers: the code under test may start processes where a test asks it to.
      if (target?.startsWith(testDir)) verdict = startsProcesses(target, visiting);
    }
    verdicts.set(file, verdict);
    return verdict;
  };
  return testFiles(testDir)
    .filter((file) => startsProcesses(file, new Set()))
    .map((file) => relative(root, file));
}

function resolveModule(path: string): string | undefined {
  for (const candidate of [
    path,
    path.replace(/\.js$/, '.ts'),
    path.replace(/\.js$/, '.tsx'),
    `${path}.ts`,
    join(path, 'index.ts'),
  ]) {
    if (existsSync(candidate) && !candidate.endsWith('/')) {
      try {
        readFileSync(candidate);
        return candidate;
      } catch {
        // a folder
      }
    }
  }
  return undefined;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}
