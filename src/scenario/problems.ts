import { closest } from '../ui/did-you-mean.js';

// What a scenario file's checks report: a problem with its JSON path and fix, and how people read a list of them.

/** One thing wrong with a scenario file: where (a JSON path such as `steps[2].message.text`), what, and how to fix it. */
export interface ScenarioProblem {
  path: string;
  message: string;
  fix: string;
  /** Where in the file's text (1-based), when read from a file: the path's, or its nearest ancestor's that the text has. */
  line?: number;
  column?: number;
}

/** How many problems of a file are shown; past them, how many more there are. */
export const MAX_PROBLEMS_SHOWN = 50;

/** The problems as people read them: each with its path, line and column, and fix; at most {@link MAX_PROBLEMS_SHOWN}. */
export function problemText(problems: ScenarioProblem[], indent = '  '): string {
  const lines = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => {
    // A problem of the whole file (`$`, a syntax error) says where in its message.
    const where =
      p.line === undefined || p.path === '$' ? '' : ` (line ${p.line}, column ${p.column})`;
    return `${indent}${p.path}${where}: ${p.message}\n${indent}  fix: ${p.fix}`;
  });
  const more = problems.length - MAX_PROBLEMS_SHOWN;
  if (more > 0)
    lines.push(
      `${indent}… and ${more} more problem${more === 1 ? '' : 's'} (fix these first, or see them all with --json)`,
    );
  return lines.join('\n');
}

/** "did you mean …? " for the candidates near `word`, or nothing. */
export function suggestion(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  return near.length ? `did you mean ${near.map((n) => `"${n}"`).join(' or ')}? ` : '';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
