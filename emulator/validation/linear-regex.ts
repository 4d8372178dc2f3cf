import { RE2JS } from 're2js';

/**
 * User-supplied regular expressions (JSON Schema `pattern` and `patternProperties` in plugin
 * schemas, characters' script `match`) run on RE2 (re2js, a pure-JS port): matching takes time
 * linear in the text whatever the pattern, so no pattern such as `^(a+)+$` can stall the event
 * loop. RE2 has no backreferences and no lookaround; a pattern using them is refused where it
 * is supplied, with RE2's reason.
 */

/** What a compiled pattern offers: a search anywhere in the text, like `RegExp.prototype.test`. */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/** Compiles `pattern` for linear-time matching; throws a SyntaxError (with RE2's reason) when RE2 cannot run it. */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    throw new SyntaxError(`${(error as Error).message.replace(/^error parsing regexp: /, '')} (patterns run on RE2: no backreferences or lookaround)`);
  }
  return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
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

/**
 * ajv's `code.regExp` engine: ajv calls it as `regExp(pattern, flags)` for `pattern` and
 * `patternProperties`, and keys its cache by the result's `toString()`.
 */
export const ajvLinearRegExp = Object.assign((pattern: string, flags: string) => linearRegExp(pattern, flags), {
  code: 'linearRegExp',
});

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
