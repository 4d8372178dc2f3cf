import { formatReadLength } from './formats.js';

/*
 * What one validation of a value against a supplied schema may cost. The schema's size is bounded (MAX_SCHEMA_EXPANDED_NODES) and
 * so is the body, but not their product: `allOf` of 150 `format`s referenced 6 times per item, against 240 values of 4,096
 * characters, held an install 37-57 s; against 1,000 one-letter items it collected ~180,000 errors. So before ajv runs, the work is
 * counted: every (schema, value) pair ajv may visit, following the applicators as ajv does (and counting every branch, every
 * pattern's candidates, every item: an upper bound), plus what a visit may cost beyond a constant (a format reads its string,
 * `required` and `enum` their lists, `uniqueItems` compares pairs). The count stops at the budget, so it costs at most that.
 *
 * A string check reads the whole string, every time a schema applies it (issue 41): `minLength` and `maxLength` count code points
 * (ajv's ucs2length walks the string), `pattern` runs RE2 over it, `byte` matches all of it. `minLength` applied 420 times through
 * nested `$ref`s to a 990 KB string cost ~1,300 units here and held the loop 3.6 s; `format: byte` x420, 1.3 s. Each application
 * now counts the characters it reads, as formats did.
 */

/** Units of validation work one value may cost: a unit is a (schema, value) visit or 64 characters a check reads (about 50-100 ns). */
export const MAX_VALIDATION_WORK = 50_000;

/**
 * Characters of a string that a check reads per unit of work: ucs2length and the formats read 1-3 ns a character here. RE2 is slower
 * per character (10-40 ns for a small program); MATCH_BUDGET (linear-regex.ts) bounds a pattern's program size times its text.
 */
export const CHARS_PER_UNIT = 64;

/** Keywords that read their whole string: ajv's `minLength`/`maxLength` count code points, `pattern` matches every character. */
const STRING_SCANS = ['minLength', 'maxLength', 'pattern'];

/**
 * Extra units for a `$ref` to a schema that holds a `$ref` itself: ajv does not inline it, and each call appends the callee's errors
 * to a copy of the caller's (`vErrors.concat`), so many such calls with many errors cost more than their visits (12,000 calls of a
 * one-check definition: 250-380 ms).
 */
const CALLED_REF_UNITS = 6;

/** Keywords whose value is one schema applied to the same value. */
const IN_PLACE = ['not', 'if', 'then', 'else'];
/** Keywords whose value is a list of schemas each applied to the same value. */
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'];

class OverBudget extends Error {}

type Schema = Record<string, unknown> | boolean;

/** Upper bound of the work of validating `value` against `root` (refs already checked local and non-recursive), capped just past `budget`. */
export function validationWork(
  root: Record<string, unknown>,
  value: unknown,
  budget = MAX_VALIDATION_WORK,
): number {
  let work = 0;
  const spend = (units: number) => {
    work += units;
    if (work > budget) throw new OverBudget();
  };
  const resolved = new Map<string, unknown>();
  const called = new Map<unknown, boolean>();
  const isCalled = (target: unknown): boolean => {
    let known = called.get(target);
    if (known === undefined) {
      known = holdsRef(target);
      called.set(target, known);
    }
    return known;
  };
  const resolve = (ref: string): unknown => {
    let target = resolved.get(ref);
    if (target === undefined && !resolved.has(ref)) {
      target = pointer(root, ref);
      resolved.set(ref, target);
    }
    return target;
  };

  const visit = (schema: unknown, data: unknown): void => {
    spend(1);
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
    const s = schema as Record<string, unknown>;
    if (typeof s.$ref === 'string') {
      const target = resolve(s.$ref);
      if (target !== undefined) {
        if (isCalled(target)) spend(CALLED_REF_UNITS);
        visit(target, data);
      }
    }
    for (const keyword of IN_PLACE) if (keyword in s) visit(s[keyword], data);
    for (const keyword of IN_PLACE_LISTS) {
      const list = s[keyword];
      if (Array.isArray(list)) for (const sub of list) visit(sub, data);
    }
    if (Array.isArray(s.enum)) spend(s.enum.length);
    if (typeof data === 'string') {
      if (typeof s.format === 'string') spend(charsUnits(formatReadLength(s.format, data)));
      for (const keyword of STRING_SCANS) if (keyword in s) spend(charsUnits(data.length));
    }
    if (data !== null && typeof data === 'object' && !Array.isArray(data))
      visitObject(s, data as Record<string, unknown>);
    if (Array.isArray(data)) visitArray(s, data);
  };

  const visitObject = (s: Record<string, unknown>, data: Record<string, unknown>): void => {
    if (Array.isArray(s.required)) spend(s.required.length);
    const keys = Object.keys(data);
    const properties = asRecord(s.properties);
    const patterns = asRecord(s.patternProperties);
    const patternSchemas = patterns ? Object.values(patterns) : [];
    // ajv tests each key against each pattern, and again to tell additional properties from patterned ones.
    const patternTests =
      patternSchemas.length * ('additionalProperties' in s || 'unevaluatedProperties' in s ? 2 : 1);
    for (const key of keys) {
      if (properties && Object.hasOwn(properties, key)) visit(properties[key], data[key]);
      // Every pattern is tried on every key; each schema counted as if it matched.
      if (patternTests > 0) spend(patternTests * charsUnits(key.length));
      for (const sub of patternSchemas) visit(sub, data[key]);
      for (const keyword of ['additionalProperties', 'unevaluatedProperties'])
        if (keyword in s) visit(s[keyword], data[key]);
      if ('propertyNames' in s) visit(s.propertyNames, key);
    }
    for (const keyword of ['dependentSchemas', 'dependencies']) {
      const map = asRecord(s[keyword]);
      if (!map) continue;
      for (const [key, sub] of Object.entries(map)) {
        if (!Object.hasOwn(data, key)) continue;
        if (Array.isArray(sub)) spend(sub.length);
        else visit(sub, data);
      }
    }
  };

  const visitArray = (s: Record<string, unknown>, data: unknown[]): void => {
    const positional = Array.isArray(s.prefixItems)
      ? s.prefixItems
      : Array.isArray(s.items)
        ? s.items
        : [];
    const rest =
      !Array.isArray(s.items) && 'items' in s
        ? s.items
        : 'additionalItems' in s
          ? s.additionalItems
          : undefined;
    data.forEach((item, index) => {
      if (index < positional.length) visit(positional[index], item);
      else if (rest !== undefined) visit(rest, item);
      if ('contains' in s) visit(s.contains, item);
      if ('unevaluatedItems' in s) visit(s.unevaluatedItems, item);
    });
    // ajv compares items pairwise when it cannot hash them.
    if (s.uniqueItems === true) spend((data.length * (data.length - 1)) / 2);
  };

  try {
    visit(root as Schema, value);
  } catch (error) {
    if (error instanceof OverBudget) return work;
    throw error;
  }
  return work;
}

/** Units for reading `chars` characters of a string once. */
function charsUnits(chars: number): number {
  return Math.ceil(chars / CHARS_PER_UNIT);
}

/** Whether a `$ref` appears anywhere in `schema` (ajv then compiles it as a function of its own instead of inlining it). */
function holdsRef(schema: unknown): boolean {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && typeof (node as Record<string, unknown>).$ref === 'string')
      return true;
    for (const child of Object.values(node)) stack.push(child);
  }
  return false;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The schema a local `$ref` (`#` or `#/a/b`) names inside `root`, or undefined. */
function pointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let tokens: string[];
  try {
    tokens = decodeURIComponent(ref.slice(2))
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    return undefined;
  }
  let node: unknown = root;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Object.hasOwn(node, token) ? (node as Record<string, unknown>)[token] : undefined;
  }
  return node;
}
