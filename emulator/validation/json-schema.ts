import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { detail, type ErrorDetail } from '../errors.js';
import { isCappedFormatTooLong, MAX_FORMAT_LENGTH, useBoundedFormats } from './formats.js';
import { ajvLinearRegExp, MatchBudgetError, withMatchBudget } from './linear-regex.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

// No logger: an unknown `format` in a supplied schema is legal (formats are annotations) and would
// otherwise be printed on the emulator's stderr at every request that uses the schema.
// Patterns run on RE2 (linear time) and formats in bounded time (formats.ts): a supplied `pattern`
// or formatted value cannot stall the process (ReDoS).
const options = { strict: false, allErrors: true, verbose: true, validateFormats: true, logger: false, code: { regExp: ajvLinearRegExp } } as const;
// Made on first use: each one compiles its meta-schema, which the emulator's start need not wait for.
let draft07: Ajv | undefined;
let draft2020: Ajv | undefined;
const ajv07 = (): Ajv => (draft07 ??= useBoundedFormats(addFormats(new Ajv(options))));
const ajv2020 = (): Ajv => (draft2020 ??= useBoundedFormats(addFormats(new Ajv2020(options) as unknown as Ajv)));

/**
 * A validator compiled on its first call rather than when the module loads. The emulator's own
 * schemas are fixed (tests cover them), so they skip ajv's meta-validation too; together that
 * takes about 100 ms off the emulator's start.
 */
export function lazyValidator<T = unknown>(schema: Record<string, unknown>, ajvOptions: Record<string, unknown> = {}): (() => ValidateFunction<T>) {
  let fn: ValidateFunction<T> | undefined;
  return () => (fn ??= new Ajv({ strict: false, validateSchema: false, ...ajvOptions }).compile<T>(schema));
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

function ajvFor(schema: Record<string, unknown>): Ajv | string {
  const declared = schema.$schema;
  if (declared === undefined) return ajv07();
  if (typeof declared !== 'string') return 'a $schema URI string';
  if (DRAFT_07.test(declared)) return ajv07();
  if (DRAFT_2020.test(declared)) return ajv2020();
  return 'http://json-schema.org/draft-07/schema# or https://json-schema.org/draft/2020-12/schema';
}

/**
 * The schema with `$schema` spelled as ajv knows it (http for draft-07, https for 2020-12, with or
 * without the trailing #): people write either form, and ajv refuses the one it has not registered.
 */
function canonical(schema: Record<string, unknown>): Record<string, unknown> {
  const declared = schema.$schema;
  if (typeof declared !== 'string') return schema;
  if (DRAFT_07.test(declared)) return { ...schema, $schema: 'http://json-schema.org/draft-07/schema#' };
  if (DRAFT_2020.test(declared)) return { ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema' };
  return schema;
}

/**
 * Most JSON values (objects, arrays, keys' values, array items, annotations included) a supplied
 * schema may hold. ajv turns a schema into code on the event loop, at a cost that grows with its
 * size: measured on the 2-core development machine (CPU time, under load), about 0.1 to 0.2 ms a
 * value, so a 2,000-property schema held the emulator for seconds. 400 values (over 100 properties
 * with a type and a description each) compiles in about 50 ms there at worst.
 */
export const MAX_SCHEMA_NODES = 400;
/** Most `pattern` keywords and `patternProperties` keys a supplied schema may hold (each is an RE2 compile). */
export const MAX_SCHEMA_PATTERNS = 30;
/** Longest a supplied schema may be as JSON text (characters): long names and strings become generated code. */
export const MAX_SCHEMA_CHARS = 64 * 1024;

/**
 * Why a supplied schema is too large for the emulator to compile without stalling (a detail under
 * `path` naming the limit), or null when it is within MAX_SCHEMA_NODES, MAX_SCHEMA_PATTERNS and
 * MAX_SCHEMA_CHARS. Counted without recursion and stopping at the first limit passed, so the count
 * itself costs little whatever the schema.
 */
export function schemaBudgetProblem(schema: unknown, path: string[]): ErrorDetail | null {
  let nodes = 0;
  let patterns = 0;
  let chars = 0;
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    nodes++;
    if (nodes > MAX_SCHEMA_NODES) {
      return detail(path, 'schema_too_large', `at most ${MAX_SCHEMA_NODES} JSON values in a schema`, `more than ${MAX_SCHEMA_NODES}`, `${path.join('.')} holds more than ${MAX_SCHEMA_NODES} JSON values (MAX_SCHEMA_NODES); split it or describe fewer properties`);
    }
    if (typeof value === 'string') chars += value.length + 2;
    else if (value === null || typeof value !== 'object') chars += 8;
    else if (Array.isArray(value)) {
      chars += value.length + 2;
      for (const item of value) stack.push(item);
    } else {
      for (const [key, child] of Object.entries(value)) {
        chars += key.length + 4;
        if (key === 'pattern' && typeof child === 'string') patterns++;
        if (key === 'patternProperties' && child !== null && typeof child === 'object') patterns += Object.keys(child).length;
        stack.push(child);
      }
    }
    if (patterns > MAX_SCHEMA_PATTERNS) {
      return detail(path, 'schema_too_large', `at most ${MAX_SCHEMA_PATTERNS} patterns in a schema`, `more than ${MAX_SCHEMA_PATTERNS}`, `${path.join('.')} holds more than ${MAX_SCHEMA_PATTERNS} patterns (pattern keywords and patternProperties keys, MAX_SCHEMA_PATTERNS); use fewer`);
    }
    if (chars > MAX_SCHEMA_CHARS) {
      return detail(path, 'schema_too_large', `at most ${MAX_SCHEMA_CHARS} characters of JSON in a schema`, `more than ${MAX_SCHEMA_CHARS}`, `${path.join('.')} is longer than ${MAX_SCHEMA_CHARS} characters as JSON (MAX_SCHEMA_CHARS); shorten it`);
    }
  }
  return null;
}

/**
 * Meta-validates a JSON Schema someone supplied (draft-07 unless `$schema` says 2020-12) and
 * checks it compiles. Returns problems as error details under `path`; empty when valid.
 */
export function checkJsonSchema(schema: unknown, path: string[]): ErrorDetail[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    if (typeof schema === 'boolean') return [];
    return [detail(path, 'invalid_type', 'object', schema, `${path.join('.')} must be a JSON Schema object`)];
  }
  // Before anything compiles or walks it: a schema past the budget is refused at the cost of counting.
  const tooLarge = schemaBudgetProblem(schema, path);
  if (tooLarge) return [tooLarge];
  const ajv = ajvFor(schema as Record<string, unknown>);
  if (typeof ajv === 'string') {
    return [detail([...path, '$schema'], 'invalid_schema', ajv, (schema as Record<string, unknown>).$schema, `unsupported $schema: use ${ajv}`)];
  }
  if (!ajv.validateSchema(canonical(schema as Record<string, unknown>))) {
    return (ajv.errors ?? []).map((e) => fromAjv(e, path, 'invalid_schema'));
  }
  try {
    compile(schema as Record<string, unknown>);
  } catch (error) {
    return [detail(path, 'invalid_schema', 'a JSON Schema that compiles', schema, `${path.join('.')} does not compile: ${(error as Error).message}`)];
  }
  return [];
}

/** Most validators of supplied schemas kept; past it the least recently used one is dropped. */
const MAX_COMPILED = 1000;
/** Validators by schema text, least recently used first (a Map keeps insertion order). */
const compiled = new Map<string, { fn: ValidateFunction; ajv: Ajv; source: Record<string, unknown> }>();

/** A cached validator for a schema that passed `checkJsonSchema`. */
export function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let entry = compiled.get(key);
  if (entry) {
    compiled.delete(key);
  } else {
    // Stored schemas passed checkJsonSchema, but an imported one may not have: never compile past the budget.
    const tooLarge = schemaBudgetProblem(schema, []);
    if (tooLarge) throw new RangeError(tooLarge.message.replace(/^\S* /, 'the schema '));
    const ajv = ajvFor(schema) as Ajv;
    // $id clashes between supplied schemas must not break compilation: compile a copy without it.
    const { $id: _ignored, ...source } = canonical(schema);
    entry = { fn: ajv.compile(source), ajv, source };
    if (compiled.size >= MAX_COMPILED) {
      const [oldest, dropped] = compiled.entries().next().value!;
      compiled.delete(oldest);
      // ajv keeps every compiled schema in a cache of its own: without this, memory grows with every new schema.
      dropped.ajv.removeSchema(dropped.source);
    }
  }
  compiled.set(key, entry);
  return entry.fn;
}

/** How many supplied schemas are compiled: the validators kept here, and ajv's own caches (for tests). */
export function compiledSchemaCounts(): { validators: number; ajvCached: number } {
  const cached = (ajv: Ajv | undefined) => (ajv as unknown as { _cache?: Map<unknown, unknown> } | undefined)?._cache?.size ?? 0;
  return { validators: compiled.size, ajvCached: cached(draft07) + cached(draft2020) };
}

/** Validates a value against a supplied schema; problems come back as error details. */
export function validateAgainst(schema: Record<string, unknown>, value: unknown, path: string[]): ErrorDetail[] {
  let fn: ValidateFunction;
  try {
    fn = compile(schema);
  } catch (error) {
    // A schema stored before its checks tightened (or imported): the input cannot be judged by it.
    return [detail(path, 'invalid_schema', 'a schema the emulator can run', schema, `the schema for ${path.join('.') || 'the value'} cannot be used: ${(error as Error).message}`)];
  }
  try {
    if (withMatchBudget(() => fn(value))) return [];
  } catch (error) {
    if (!(error instanceof MatchBudgetError)) throw error;
    return [detail(path, 'pattern_budget', 'a value the pattern can be checked against in time', value, `${path.join('.') || 'the value'}: ${error.message}`)];
  }
  return (fn.errors ?? []).map((e) => fromAjv(e, path, e.keyword));
}

/** Turns an ajv error into the spec's detail shape. */
export function fromAjv(error: ErrorObject, base: string[], code = error.keyword): ErrorDetail {
  const instance = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = [...base, ...instance];
  let expected = error.keyword;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'type') expected = String(params.type);
  else if (error.keyword === 'enum') expected = (params.allowedValues as unknown[]).join(' | ');
  else if (error.keyword === 'required') {
    path.push(String(params.missingProperty));
    expected = 'present';
  } else if (error.keyword === 'additionalProperties') {
    path.push(String(params.additionalProperty));
    expected = 'absent';
  } else if (typeof params.limit === 'number') expected = `${error.keyword} ${params.limit}`;
  else if (typeof params.format === 'string') expected = `format ${params.format}`;
  else if (typeof params.pattern === 'string') expected = `pattern ${params.pattern}`;
  const where = path.length > 0 ? path.join('.') : 'the value';
  let message = `${where} ${error.message ?? 'is invalid'}`;
  if (error.keyword === 'required') message = `${where} is required`;
  if (error.keyword === 'additionalProperties') message = `${where} is not allowed here`;
  if (error.keyword === 'format' && typeof error.data === 'string' && isCappedFormatTooLong(String(params.format), error.data)) {
    message = `${where} is longer than ${MAX_FORMAT_LENGTH} characters, the most a format (${String(params.format)}) is checked on`;
  }
  return { code, expected, received: received(error), path, message };
}

function received(error: ErrorObject): string {
  if (error.keyword === 'required') return 'undefined';
  if (error.keyword === 'additionalProperties') return String((error.params as Record<string, unknown>).additionalProperty);
  const data = error.data;
  if (data === undefined) return 'undefined';
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'array';
  return typeof data === 'object' ? 'object' : String(data).slice(0, 200);
}
