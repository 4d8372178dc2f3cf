// The `${…}` of scenario text: references (`${conv.id}`, `${env.NAME}`, `${run.id}`, `${unique}`),
// the escape `$${` for a literal `${`, and the scrubbing of expanded environment values from
// everything a run returns. A recording escapes every text it did not author, so a chat message
// `hi ${env.SECRET}` replays as that text, never as the variable.

/**
 * A reference or an escape: `$${` is a literal `${` (group 1 undefined), `${x}` names `x` (group 1). Scanning left to right, a
 * `$` that starts neither stays as it is, so `$$${` reads as `$` then the escape.
 */
const TOKEN = /\$\$\{|\$\{([^}]*)\}/g;
/** A string that is one reference and nothing else: it keeps the referenced value's type. */
const WHOLE = /^\$\{([^}]*)\}$/;

/** The references in `text` (escapes skipped). */
export function referencesIn(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(TOKEN)) if (match[1] !== undefined) out.push(match[1]);
  return out;
}

/** `text` with each reference replaced by `lookup(reference)` and each `$${` by `${`; a whole-string reference keeps its type. */
export function expandText(text: string, lookup: (reference: string) => unknown): unknown {
  const whole = WHOLE.exec(text);
  if (whole) return lookup(whole[1]);
  return text.replace(TOKEN, (_token: string, reference: string | undefined) =>
    reference === undefined ? '${' : String(lookup(reference)),
  );
}

/** `text` as a scenario string that expands to exactly `text` (each `${` escaped). */
export function literalText(text: string): string {
  // A function: in a replacement string `$$` would itself mean one `$`.
  return text.replaceAll('${', () => '$${');
}

/** Every string in `value` (arrays and objects walked, keys kept) as {@link literalText}. */
export function literalValue<T>(value: T): T {
  if (typeof value === 'string') return literalText(value) as T;
  if (Array.isArray(value)) return value.map((item) => literalValue(item)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, literalValue(inner)]),
    ) as T;
  return value;
}

/** `ENV_NAME` as the scenario's `env` declares names. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces each expanded environment value by its reference (`${env.NAME}`) in every string of a result, so that no output
 * (console, --json, JUnit, MCP) carries a value the scenario took from the environment. Longest values first, so that a value
 * inside another is not scrubbed half.
 */
export class EnvScrubber {
  private readonly values = new Map<string, string>();

  /** Remembers that `value` came from `${env.NAME}`. */
  add(name: string, value: string): void {
    if (value !== '' && !this.values.has(value)) this.values.set(value, `\${env.${name}}`);
  }

  /** `text` with each remembered value replaced by its reference. */
  text(text: string): string {
    if (this.values.size === 0) return text;
    const longestFirst = [...this.values.keys()].sort((a, b) => b.length - a.length);
    let out = text;
    for (const value of longestFirst) {
      const reference = this.values.get(value)!;
      out = out.replaceAll(value, () => reference);
    }
    return out;
  }

  /** A copy of `value` with every string (and object key) scrubbed. */
  value<T>(value: T): T {
    if (this.values.size === 0) return value;
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.value(item)) as T;
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [this.text(key), this.value(inner)]),
      ) as T;
    return value;
  }
}
