import { readdir, stat } from 'node:fs/promises';
import { join, parse, relative, resolve } from 'node:path';
import { ProjectPathError, readProjectFile } from '../shared/project-file.js';
import type { Scenario } from './schema.js';
import { MAX_DEPTH, nestedProblem, validateScenario, type ScenarioProblem } from './validate.js';
import { jsonSyntaxProblem } from '../manifest/json-syntax.js';
import { nestedDeeperThan, positionsOf } from './positions.js';

/** A file read: its scenario, or every problem it has. */
export interface LoadedFile {
  file: string;
  scenario: Scenario | null;
  problems: ScenarioProblem[];
  /** The file does not exist (a command exits 4 when every bad file is missing). */
  missing?: true;
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

/** The largest scenario file read (a recording of 100 deliveries with their replies is far smaller). */
export const MAX_SCENARIO_BYTES = 10_000_000;

/**
 * Reads and checks one scenario file: a regular file (a FIFO or a device is refused, never waited on) of at most
 * MAX_SCENARIO_BYTES, inside `options.root` when given (links followed; an MCP tool passes the project). With
 * `options.allowEnv`, a variable the file declares and the run does not allow is a problem (src/scenario/allow-env.ts).
 */
export async function loadScenarioFile(
  file: string,
  env?: Record<string, string | undefined>,
  options: { root?: string; allowEnv?: ReadonlySet<string> } = {},
): Promise<LoadedFile> {
  let text: string;
  try {
    const root = options.root ?? parse(resolve(file)).root;
    const bytes = await readProjectFile(root, resolve(file), {
      maxBytes: MAX_SCENARIO_BYTES,
      label: 'the scenario file',
    });
    text = bytes.toString('utf8');
  } catch (error) {
    const fix = 'name a scenario file or a folder of them (default: scenarios/)';
    const missing =
      error instanceof ProjectPathError
        ? error.missing
        : (error as NodeJS.ErrnoException).code === 'ENOENT';
    const message =
      error instanceof ProjectPathError
        ? error.message
        : missing
          ? 'no such file'
          : (error as Error).message;
    // Without a project (the file system's root as the bound), "name a file inside /" would say nothing.
    const pathFix = error instanceof ProjectPathError && options.root !== undefined && !missing;
    return {
      file,
      scenario: null,
      problems: [{ path: '$', message, fix: pathFix ? (error as ProjectPathError).fix : fix }],
      ...(missing ? { missing: true as const } : {}),
    };
  }
  // Before JSON.parse: a file nested millions deep would take seconds and a gigabyte to parse and to report.
  const tooDeep = nestedDeeperThan(text, MAX_DEPTH);
  if (tooDeep)
    return {
      file,
      scenario: null,
      problems: [{ ...nestedProblem(tooDeep.path), ...tooDeep.position }],
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Where the syntax breaks, by line and column; never the text itself (a file may hold what nobody should print).
    const syntax = jsonSyntaxProblem(text);
    const where = syntax
      ? `line ${syntax.line}, column ${syntax.column}: ${syntax.message}`
      : 'a syntax error';
    return {
      file,
      scenario: null,
      problems: [
        {
          path: '$',
          message: `not JSON: ${where}`,
          fix: syntax
            ? 'correct the JSON at that line and column (often a missing or extra comma, or a missing quote)'
            : 'make the file JSON: a scenario object, as docs/scenarios.md shows',
          ...(syntax ? { line: syntax.line, column: syntax.column } : {}),
        },
      ],
    };
  }
  const checked = validateScenario(parsed, env, options.allowEnv);
  if (!checked.ok) {
    const at = positionsOf(
      text,
      checked.problems.map((p) => p.path),
    );
    // In the order of the file, as an editor shows them (a problem of no place first).
    const problems = checked.problems
      .map((p) => ({ ...p, ...at.get(p.path) }))
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    return { file, scenario: null, problems };
  }
  return { file, scenario: { ...checked.scenario, file }, problems: [] };
}
