// A small JSON Schema checker for the browser. The dashboard's CSP forbids eval, which ajv needs,
// so Trigger checks payloads with this before sending: the keywords the contract's event schemas
// use (type, enum, const, properties, required, additionalProperties, patternProperties, items,
// anyOf, allOf, oneOf, not, lengths, bounds, pattern, multipleOf, uniqueItems, property counts,
// date-time), which also covers the usual external event `payloadSchema`. Keywords it does not know
// ($ref, if/then/else, dependencies, other formats) pass: the emulator checks every event payload
// again with ajv and its answer is the last word.
//
// The schema is someone else's (any MEMBER of the org writes an external event's payloadSchema), so
// its `pattern` and `patternProperties` run on the emulator's own linear engine (RE2, re2js) with the
// same size limit and match budget, never on the browser's backtracking RegExp: `^(a+)+$` cannot
// freeze the page, and a pattern means here what it means to the emulator (`k\z` is RE2's). Nothing
// in a schema makes the check throw: whatever goes wrong is one more problem, shown as a message.

import {
  linearRegExp,
  MatchBudgetError,
  withMatchBudget,
  type LinearRegExp,
} from '../../validation/linear-regex.js';

/** One problem, shaped like the `details` of the emulator's 400 answers. */
export interface SchemaProblem {
  path: string[];
  code: string;
  expected: string;
  message: string;
}

type Schema = Record<string, unknown>;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function where(path: string[]): string {
  return path.length ? path.join('.') : 'the value';
}

/**
 * The problems of `value` against `schema`, each with the path of the value, under `base`. Never
 * throws: a schema the page cannot check (a pattern RE2 refuses, matches past the budget, a
 * malformed keyword) is reported as a problem too.
 */
export function checkSchema(schema: unknown, value: unknown, base: string[] = []): SchemaProblem[] {
  return withMatchBudget(() => problemsWithinBudget(schema, value, base));
}

/** `checkSchema` spending the match budget in force (the caller's `withMatchBudget`) instead of a fresh one. */
export function problemsWithinBudget(
  schema: unknown,
  value: unknown,
  base: string[] = [],
): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  try {
    visit(schema, value, base, problems);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof MatchBudgetError)
      problems.push({
        path: base,
        code: 'pattern',
        expected: 'a shorter value or a simpler pattern',
        message: `${where(base)}: ${reason}`,
      });
    else
      problems.push({
        path: base,
        code: 'schema',
        expected: 'a schema this page can check',
        message: `${where(base)} could not be checked against this schema (${reason}); the emulator checks it again when it is sent`,
      });
  }
  return problems;
}

/** Compiled patterns by source (a pattern or a RE2 error); a few hundred at most. */
const compiled = new Map<string, LinearRegExp | SyntaxError>();

/** A schema's pattern on the linear engine, or the SyntaxError RE2 (or the size limit) gives for it. */
function patternOf(pattern: string): LinearRegExp | SyntaxError {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    try {
      entry = linearRegExp(pattern);
    } catch (error) {
      entry = error instanceof SyntaxError ? error : new SyntaxError(String(error));
    }
    if (compiled.size >= 500) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, entry);
  }
  return entry;
}

/** The problem of a pattern RE2 cannot run (the emulator refuses such a schema when it is saved). */
function unusablePattern(path: string[], pattern: string, error: SyntaxError): SchemaProblem {
  return {
    path,
    code: 'schema',
    expected: 'a pattern RE2 can run',
    message: `${where(path)} cannot be checked against the pattern ${pattern}: ${error.message}`,
  };
}

/** The problems of a subschema, inside the current check (same match budget; a throw ends the whole check). */
function collect(schema: unknown, value: unknown, path: string[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  visit(schema, value, path, problems);
  return problems;
}

function visit(schema: unknown, value: unknown, path: string[], out: SchemaProblem[]): void {
  if (schema === true || schema === undefined || schema === null || typeof schema !== 'object')
    return;
  const s = schema as Schema;
  const add = (code: string, expected: string, message: string) =>
    out.push({ path, code, expected, message: `${where(path)} ${message}` });

  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => typeMatches(value, t))) {
      add('type', types.join(' | '), `must be ${types.join(' or ')}, not ${typeOf(value)}`);
      return;
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
    add('enum', s.enum.join(' | '), `must be one of ${s.enum.join(', ')}`);
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value))
    add('const', JSON.stringify(s.const), `must be ${JSON.stringify(s.const)}`);

  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && [...value].length < s.minLength)
      add(
        'minLength',
        `at least ${s.minLength} characters`,
        `must have at least ${s.minLength} characters`,
      );
    if (typeof s.maxLength === 'number' && [...value].length > s.maxLength)
      add(
        'maxLength',
        `at most ${s.maxLength} characters`,
        `must have at most ${s.maxLength} characters`,
      );
    if (typeof s.pattern === 'string') {
      const re = patternOf(s.pattern);
      if (re instanceof SyntaxError) out.push(unusablePattern(path, s.pattern, re));
      else if (!re.test(value)) add('pattern', s.pattern, `must match the pattern ${s.pattern}`);
    }
    if (s.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))))
      add('format', 'date-time', 'must be a date-time (like 2026-01-31T12:00:00.000Z)');
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum)
      add('minimum', `>= ${s.minimum}`, `must be >= ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum)
      add('maximum', `<= ${s.maximum}`, `must be <= ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
      add('exclusiveMinimum', `> ${s.exclusiveMinimum}`, `must be > ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
      add('exclusiveMaximum', `< ${s.exclusiveMaximum}`, `must be < ${s.exclusiveMaximum}`);
    if (
      typeof s.multipleOf === 'number' &&
      s.multipleOf > 0 &&
      !Number.isInteger(Number((value / s.multipleOf).toPrecision(12)))
    )
      add('multipleOf', `a multiple of ${s.multipleOf}`, `must be a multiple of ${s.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems)
      add('minItems', `at least ${s.minItems} items`, `must have at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems)
      add('maxItems', `at most ${s.maxItems} items`, `must have at most ${s.maxItems} items`);
    if (
      s.uniqueItems === true &&
      new Set(value.map((v) => JSON.stringify(v))).size !== value.length
    )
      add('uniqueItems', 'no duplicate items', 'must not hold the same item twice');
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items))
      value.forEach((item, i) => {
        visit(s.items, item, [...path, String(i)], out);
      });
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const count = Object.keys(object).length;
    if (typeof s.minProperties === 'number' && count < s.minProperties)
      add(
        'minProperties',
        `at least ${s.minProperties} properties`,
        `must have at least ${s.minProperties} properties`,
      );
    if (typeof s.maxProperties === 'number' && count > s.maxProperties)
      add(
        'maxProperties',
        `at most ${s.maxProperties} properties`,
        `must have at most ${s.maxProperties} properties`,
      );
    for (const name of (s.required as string[] | undefined) ?? []) {
      if (!Object.hasOwn(object, name))
        out.push({
          path: [...path, name],
          code: 'required',
          expected: 'a value',
          message: `${where([...path, name])} is required`,
        });
    }
    const patterns: Array<readonly [LinearRegExp, unknown]> = [];
    for (const [p, sub] of Object.entries((s.patternProperties ?? {}) as Record<string, unknown>)) {
      const re = patternOf(p);
      if (re instanceof SyntaxError) out.push(unusablePattern(path, p, re));
      else patterns.push([re, sub]);
    }
    for (const [name, v] of Object.entries(object)) {
      const known = Object.hasOwn(properties, name);
      if (known) visit(properties[name], v, [...path, name], out);
      const matching = patterns.filter(([re]) => re.test(name));
      for (const [, sub] of matching) visit(sub, v, [...path, name], out);
      if (!known && matching.length === 0) {
        if (s.additionalProperties === false)
          out.push({
            path: [...path, name],
            code: 'additionalProperties',
            expected: 'no such property',
            message: `${where([...path, name])} is not allowed here`,
          });
        else if (s.additionalProperties && typeof s.additionalProperties === 'object')
          visit(s.additionalProperties, v, [...path, name], out);
      }
    }
  }
  if (s.not !== undefined && typeof s.not === 'object' && collect(s.not, value, path).length === 0)
    add('not', 'not the shape `not` describes', 'must not match the schema under `not`');
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) visit(sub, value, path, out);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (!Array.isArray(options)) continue;
    const results = options.map((sub) => collect(sub, value, path));
    const passing = results.filter((r) => r.length === 0).length;
    if (key === 'anyOf' && passing === 0) {
      // The option closest to the value says most about what to fix.
      out.push(...results.reduce((best, r) => (r.length < best.length ? r : best)));
    } else if (key === 'oneOf' && passing !== 1)
      add(
        'oneOf',
        'exactly one of the allowed shapes',
        passing === 0
          ? 'matches none of the allowed shapes'
          : 'matches more than one allowed shape',
      );
  }
}
