import { randomBytes } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  EXPECTATION_KINDS,
  STEP_KINDS,
  typedExpectation,
  typedStep,
  type Expectation,
  type Step,
} from './schema.js';

// The `${…}` of scenario text: references (`${conv.id}`, `${env.NAME}`, `${run.id}`, `${unique}`),
// the escape `$${` for a literal `${`, their expansion while a scenario runs (RunReferences), and
// the scrubbing of expanded environment values from everything a run returns. A recording escapes
// every text it did not author, so a chat message `hi ${env.SECRET}` replays as that text, never as
// the variable.

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

  /** Remembers that `value` came from `${env.NAME}`, and its form inside a JSON string (a label or an observed text quotes it). */
  add(name: string, value: string): void {
    const reference = `\${env.${name}}`;
    for (const form of [value, JSON.stringify(value).slice(1, -1)])
      if (form !== '' && !this.values.has(form)) this.values.set(form, reference);
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

/** A field of a step's result by path (`data.items.0.id`); an error naming what is there when the path leads nowhere. */
export function resultField(step: string, result: Record<string, unknown>, field: string): unknown {
  if (Object.hasOwn(result, field)) return result[field];
  let value: unknown = result;
  for (const key of field.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key))
      throw new Error(
        `step "${step}"'s result has no ${field}${value !== null && typeof value === 'object' ? ` (at ${key}: fields ${Object.keys(value).join(', ') || 'none'})` : ''}`,
      );
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * What the references of one run name: the results of its steps so far, the environment variables the scenario declares,
 * the run's id and its unique values. Every environment value expanded is remembered by the scrubber.
 */
export class RunReferences {
  private readonly runId = randomBytes(4).toString('hex');
  private uniques = 0;
  private readonly results = new Map<string, Record<string, unknown>>();

  constructor(
    /** The environment variables the scenario declares. */
    private readonly declared: readonly string[],
    private readonly env: Record<string, string | undefined>,
    private readonly scrubber: EnvScrubber,
  ) {}

  /** Keeps a step's result, for `${id.field}` in later steps. */
  remember(stepId: string, result: Record<string, unknown>): void {
    this.results.set(stepId, result);
  }

  /** `${…}` replaced and `$${` made `${`: a whole-string reference keeps its value's type. */
  resolve(value: unknown): unknown {
    if (typeof value === 'string') return expandText(value, (reference) => this.lookup(reference));
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
    return value;
  }

  /** `text` with its references expanded, as text (a whole-string reference to a number gives its digits). */
  text(text: string): string {
    return String(this.resolve(text));
  }

  /**
   * `step` with `body` (its body, references expanded by {@link resolve}), every field still of the type its kind's schema
   * gives it: a value where text goes becomes text (a number, `${list.meta.pagination.total}`, its digits). Throws naming a
   * field that does not fit.
   */
  fitStep(step: Step, body: unknown): Step {
    const fittedBody = fitted(STEP_KINDS[step.kind].schema, body, step.kind);
    const expanded = typedStep(step.kind, fittedBody, {
      ...(step.id !== undefined ? { id: step.id } : {}),
      expect: step.expect,
    });
    if (!expanded) throw new Error(`${step.kind} does not fit once its references are expanded`);
    return expanded;
  }

  /** `expectation` with `body` (its body, references expanded), as {@link fitStep} fits a step. */
  fitExpectation(expectation: Expectation, body: unknown): Expectation {
    const fittedBody = fitted(EXPECTATION_KINDS[expectation.kind], body, expectation.kind);
    const expanded = typedExpectation(expectation.kind, fittedBody);
    if (!expanded)
      throw new Error(`${expectation.kind} does not fit once its references are expanded`);
    return expanded;
  }

  private lookup(reference: string): unknown {
    const [head, ...rest] = reference.split('.');
    const field = rest.join('.');
    if (head === 'unique') return `${this.runId}-${++this.uniques}`;
    if (head === 'run') return this.runId;
    if (head === 'env') {
      // Checked by validation too; a Scenario object given as validated is held to the same rule.
      if (!this.declared.includes(field))
        throw new Error(
          `the scenario does not declare the environment variable ${field}: add "env": ["${field}"]`,
        );
      const value = this.env[field];
      if (value === undefined) throw new Error(`the environment variable ${field} is not set`);
      this.scrubber.add(field, value);
      return value;
    }
    const result = this.results.get(head);
    if (!result) throw new Error(`step "${head}" has no result (did it fail?)`);
    return resultField(head, result, field);
  }
}

/** `value` converted where its schema asks another type (a number where text goes becomes text); throws naming a field that still does not fit. */
function fitted(schema: TSchema, value: unknown, kind: string): unknown {
  const converted = Value.Convert(schema, value);
  const error = Value.Errors(schema, converted).First();
  if (!error) return converted;
  const field = error.path.split('/').filter(Boolean).join('.');
  throw new Error(
    `${kind}${field ? `.${field}` : ''} does not fit once its references are expanded: ${error.message.toLowerCase()}`,
  );
}
