import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Scenario } from './schema.js';
import { validateScenario, type ScenarioProblem } from './validate.js';

/** A file read: its scenario, or every problem it has. */
export interface LoadedFile {
  file: string;
  scenario: Scenario | null;
  problems: ScenarioProblem[];
}

/** The scenario files of each path: a file as it is, a folder's `*.json` files (sorted, not recursive into dot folders). */
export async function scenarioFiles(paths: string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    const full = resolve(cwd, path);
    const info = await stat(full).catch(() => null);
    if (!info) {
      out.push(full);
      continue;
    }
    if (!info.isDirectory()) {
      out.push(full);
      continue;
    }
    const entries = await readdir(full, { withFileTypes: true, recursive: true });
    const files = entries
      .filter((e) => e.isFile() && e.name.endsWith('.json'))
      .map((e) => join(e.parentPath, e.name))
      .filter(
        (f) =>
          !relative(full, f)
            .split(/[\\/]/)
            .some((part) => part.startsWith('.')),
      )
      .sort();
    out.push(...files);
  }
  return [...new Set(out)];
}

/** Reads and checks one scenario file. */
export async function loadScenarioFile(
  file: string,
  env?: Record<string, string | undefined>,
): Promise<LoadedFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      file,
      scenario: null,
      problems: [
        {
          path: '$',
          message: code === 'ENOENT' ? 'no such file' : (error as Error).message,
          fix: 'name a scenario file or a folder of them (default: scenarios/)',
        },
      ],
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      file,
      scenario: null,
      problems: [
        { path: '$', message: `not JSON: ${(error as Error).message}`, fix: 'fix the JSON syntax' },
      ],
    };
  }
  const checked = validateScenario(parsed, env);
  if (!checked.ok) return { file, scenario: null, problems: checked.problems };
  return { file, scenario: { ...checked.scenario, file }, problems: [] };
}
