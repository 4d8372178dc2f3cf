import { RE2JS } from 're2js';

// Patterns a user's file supplies (a scenario's `reply.pattern`) run on RE2: linear in the text, so
// `(a+)+b` cannot stall a run; backreferences and lookaround are refused. The emulator's own
// patterns (schema `pattern`s, script `match`es) use emulator/validation/linear-regex.ts, which adds a
// per-request match budget on the same engine.

/** Largest compiled pattern accepted (RE2 program instructions; `^You said: .+$` is about 20). */
export const MAX_PATTERN_PROGRAM_SIZE = 1_000;

/** A compiled pattern: a search anywhere in the text, like `RegExp.prototype.test`. */
export interface LinearPattern {
  test(text: string): boolean;
}

/** Compiles `pattern` for linear-time matching; throws a SyntaxError with RE2's reason when RE2 cannot run it. */
export function linearPattern(pattern: string): LinearPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new SyntaxError(
      `${(error as Error).message.replace(/^error parsing regexp: /, '')} (patterns run on RE2: no backreferences or lookaround)`,
    );
  }
  const size = compiled.programSize();
  if (size > MAX_PATTERN_PROGRAM_SIZE)
    throw new SyntaxError(
      `the pattern is too large (${size} RE2 instructions, at most ${MAX_PATTERN_PROGRAM_SIZE})`,
    );
  return { test: (text) => compiled.test(text) };
}

/** Why `pattern` cannot be used on RE2, or null when it can. */
export function linearPatternProblem(pattern: string): string | null {
  try {
    linearPattern(pattern);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
