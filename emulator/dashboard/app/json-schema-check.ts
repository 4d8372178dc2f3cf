// A small JSON Schema checker for the browser. The dashboard's CSP forbids eval, which ajv needs,
// so Trigger checks payloads with this before sending: the keywords the contract's event schemas
// use (type, enum, const, properties, required, additionalProperties, patternProperties, items,
// anyOf, allOf, oneOf, not, lengths, bounds, pattern, multipleOf, uniqueItems, property counts,
// date-time), which also covers the usual external event `payloadSchema`. Keywords it does not know
// ($ref, if/then/else, dependencies, other formats) pass: the emulator checks every event payload
// again with ajv and its answer is the last word.

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

/** The problems of `value` against `schema`, each with the path of the value, under `base`. */
export function checkSchema(schema: unknown, value: unknown, base: string[] = []): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  visit(schema, value, base, problems);
  return problems;
}

/** A schema's `pattern` as a RegExp; a pattern JavaScript cannot compile is not checked (undefined). */
function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

function visit(schema: unknown, value: unknown, path: string[], out: SchemaProblem[]): void {
  if (schema === true || schema === undefined || schema === null || typeof schema !== 'object') return;
  const s = schema as Schema;
  const add = (code: string, expected: string, message: string) => out.push({ path, code, expected, message: `${where(path)} ${message}` });

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
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) add('const', JSON.stringify(s.const), `must be ${JSON.stringify(s.const)}`);

  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && [...value].length < s.minLength) add('minLength', `at least ${s.minLength} characters`, `must have at least ${s.minLength} characters`);
    if (typeof s.maxLength === 'number' && [...value].length > s.maxLength) add('maxLength', `at most ${s.maxLength} characters`, `must have at most ${s.maxLength} characters`);
    if (typeof s.pattern === 'string' && safeRegExp(s.pattern)?.test(value) === false) add('pattern', s.pattern, `must match the pattern ${s.pattern}`);
    if (s.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) add('format', 'date-time', 'must be a date-time (like 2026-01-31T12:00:00.000Z)');
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) add('minimum', `>= ${s.minimum}`, `must be >= ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) add('maximum', `<= ${s.maximum}`, `must be <= ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) add('exclusiveMinimum', `> ${s.exclusiveMinimum}`, `must be > ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) add('exclusiveMaximum', `< ${s.exclusiveMaximum}`, `must be < ${s.exclusiveMaximum}`);
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(Number((value / s.multipleOf).toPrecision(12)))) add('multipleOf', `a multiple of ${s.multipleOf}`, `must be a multiple of ${s.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) add('minItems', `at least ${s.minItems} items`, `must have at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) add('maxItems', `at most ${s.maxItems} items`, `must have at most ${s.maxItems} items`);
    if (s.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) add('uniqueItems', 'no duplicate items', 'must not hold the same item twice');
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) value.forEach((item, i) => visit(s.items, item, [...path, String(i)], out));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const count = Object.keys(object).length;
    if (typeof s.minProperties === 'number' && count < s.minProperties) add('minProperties', `at least ${s.minProperties} properties`, `must have at least ${s.minProperties} properties`);
    if (typeof s.maxProperties === 'number' && count > s.maxProperties) add('maxProperties', `at most ${s.maxProperties} properties`, `must have at most ${s.maxProperties} properties`);
    for (const name of (s.required as string[] | undefined) ?? []) {
      if (!Object.hasOwn(object, name)) out.push({ path: [...path, name], code: 'required', expected: 'a value', message: `${where([...path, name])} is required` });
    }
    const patterns = Object.entries((s.patternProperties ?? {}) as Record<string, unknown>).map(([p, sub]) => [new RegExp(p, 'u'), sub] as const);
    for (const [name, v] of Object.entries(object)) {
      const known = Object.hasOwn(properties, name);
      if (known) visit(properties[name], v, [...path, name], out);
      const matching = patterns.filter(([re]) => re.test(name));
      for (const [, sub] of matching) visit(sub, v, [...path, name], out);
      if (!known && matching.length === 0) {
        if (s.additionalProperties === false) out.push({ path: [...path, name], code: 'additionalProperties', expected: 'no such property', message: `${where([...path, name])} is not allowed here` });
        else if (s.additionalProperties && typeof s.additionalProperties === 'object') visit(s.additionalProperties, v, [...path, name], out);
      }
    }
  }
  if (s.not !== undefined && typeof s.not === 'object' && checkSchema(s.not, value, path).length === 0) add('not', 'not the shape `not` describes', 'must not match the schema under `not`');
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) visit(sub, value, path, out);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (!Array.isArray(options)) continue;
    const results = options.map((sub) => checkSchema(sub, value, path));
    const passing = results.filter((r) => r.length === 0).length;
    if (key === 'anyOf' && passing === 0) {
      // The option closest to the value says most about what to fix.
      out.push(...results.reduce((best, r) => (r.length < best.length ? r : best)));
    } else if (key === 'oneOf' && passing !== 1) add('oneOf', 'exactly one of the allowed shapes', passing === 0 ? 'matches none of the allowed shapes' : 'matches more than one allowed shape');
  }
}
