import { RE2JS } from 're2js';

/*
 * User-supplied patterns (schema `pattern`s, script `match`es) run on RE2: linear in the text, so `^(a+)+$` cannot stall the loop;
 * backreferences and lookaround are refused. Linear is not bounded (program size times text length), so programs are capped at
 * MAX_PROGRAM_SIZE and the matches of one validation or reply share MATCH_BUDGET (10 to 40 ns a unit at worst).
 */

/** Largest compiled pattern accepted (RE2 program instructions; `^[a-z0-9._-]+@[a-z0-9.-]+$` is about 20). */
export const MAX_PROGRAM_SIZE = 1_000;
/** Program size times text length that the matches of one validation or one reply may spend together. */
export const MATCH_BUDGET = 2_500_000;

/** The matches of one validation or reply went past MATCH_BUDGET. */
export class MatchBudgetError extends RangeError {
  constructor(readonly pattern: string) {
    super(
      `matching /${pattern}/ against this value would take too long (pattern size times text length over ${MATCH_BUDGET.toLocaleString('en')}); use a shorter value or a simpler pattern`,
    );
    this.name = 'MatchBudgetError';
  }
}

let remaining = MATCH_BUDGET;

/** Runs `work` with a fresh match budget (validations and replies are synchronous, so one counter serves). */
export function withMatchBudget<T>(work: () => T): T {
  const saved = remaining;
  remaining = MATCH_BUDGET;
  try {
    return work();
  } finally {
    remaining = saved;
  }
}

/** What a compiled pattern offers: a search anywhere in the text, like `RegExp.prototype.test`. */
export type LinearRegExp = { test(text: string): boolean; toString(): string };

/** Compiles `pattern` for linear-time matching; throws a SyntaxError (with RE2's reason) when RE2 cannot run it. */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new SyntaxError(
      `${(error as Error).message.replace(/^error parsing regexp: /, '')} (patterns run on RE2: no backreferences or lookaround)`,
    );
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE)
    throw new SyntaxError(
      `the pattern is too large (${size} RE2 instructions, at most ${MAX_PROGRAM_SIZE})`,
    );
  return {
    test: (text: string) => {
      const cost = size * (text.length + 1);
      if (cost > remaining) throw new MatchBudgetError(pattern);
      remaining -= cost;
      return compiled.test(text);
    },
    toString: () => `/${pattern}/${flags}`,
  };
}

/** Why `pattern` cannot be used (not valid for RE2), or null when it can. */
export function linearRegExpProblem(pattern: string, flags = ''): string | null {
  try {
    linearRegExp(pattern, flags);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** ajv's `code.regExp` engine, called as `regExp(pattern, flags)`; ajv keys its cache by the result's `toString()`. */
export const ajvLinearRegExp = Object.assign(
  (pattern: string, flags: string) => linearRegExp(pattern, flags),
  { code: 'linearRegExp' },
);

const cache = new Map<string, LinearRegExp | null>();
const MAX_CACHED = 500;

/** A case-insensitive linear matcher for a script `match`, cached; null when RE2 cannot compile it. */
export function cachedCaseInsensitive(pattern: string): LinearRegExp | null {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    try {
      entry = linearRegExp(pattern, 'i');
    } catch {
      entry = null;
    }
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(pattern, entry);
  }
  return entry;
}
