import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { detail, type ErrorDetail } from '../errors.js';
import { isCappedFormatTooLong, MAX_FORMAT_LENGTH, useBoundedFormats } from './formats.js';
import { ajvLinearRegExp, MatchBudgetError, withMatchBudget } from './linear-regex.js';
import { MAX_VALIDATION_WORK, validationWork } from './work-budget.js';

// No logger: an unknown `format` is legal and would be printed at every request that uses it.
// Patterns run on RE2 and formats in bounded time: a supplied schema cannot stall the process (ReDoS).
const options = {
  strict: false,
  allErrors: true,
  verbose: true,
  validateFormats: true,
  logger: false,
  code: { regExp: ajvLinearRegExp },
} as const;
// Made on first use: each one compiles its meta-schema, which the emulator's start need not wait for.
let draft07: Ajv | undefined;
let draft2020: Ajv | undefined;
const ajv07 = (): Ajv => (draft07 ??= useBoundedFormats(addFormats.default(new Ajv(options))));
const ajv2020 = (): Ajv =>
  (draft2020 ??= useBoundedFormats(addFormats.default(new Ajv2020(options))));

/** A validator of one of the emulator's own schemas, compiled on its first call without meta-validation (100 ms off a start). */
export function lazyValidator<T = unknown>(
  schema: Record<string, unknown>,
  ajvOptions: Record<string, unknown> = {},
): () => ValidateFunction<T> {
  let fn: ValidateFunction<T> | undefined;
  return () =>
    (fn ??= new Ajv({ strict: false, validateSchema: false, ...ajvOptions }).compile<T>(schema));
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/** The ajv of a schema's draft, with `$schema` spelled as ajv knows it (http or https, `#` or not); else what `$schema` should be. */
function draftOf(
  schema: Record<string, unknown>,
): { ajv: Ajv; source: Record<string, unknown> } | string {
  const declared = schema.$schema;
  if (declared === undefined) return { ajv: ajv07(), source: schema };
  if (typeof declared !== 'string') return 'a $schema URI string';
  if (DRAFT_07.test(declared))
    return {
      ajv: ajv07(),
      source: { ...schema, $schema: 'http://json-schema.org/draft-07/schema#' },
    };
  if (DRAFT_2020.test(declared))
    return {
      ajv: ajv2020(),
      source: { ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema' },
    };
  return 'http://json-schema.org/draft-07/schema# or https://json-schema.org/draft/2020-12/schema';
}

/** Most JSON values in a supplied schema: ajv compiles 0.1-0.2 ms a value on the event loop (2,000 properties: seconds; 400: 50 ms). */
export const MAX_SCHEMA_NODES = 400;
/** Most `pattern` keywords and `patternProperties` keys a supplied schema may hold (each is an RE2 compile). */
export const MAX_SCHEMA_PATTERNS = 30;
/** Longest a supplied schema may be as JSON text (characters): long names and strings become generated code. */
export const MAX_SCHEMA_CHARS = 64 * 1024;

/** Why a supplied schema is too large to compile without stalling, or null; counted without recursion, stopping at the first limit passed. */
export function schemaBudgetProblem(schema: unknown, path: string[]): ErrorDetail | null {
  let nodes = 0;
  let patterns = 0;
  let chars = 0;
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    nodes++;
    if (nodes > MAX_SCHEMA_NODES) {
      return detail(
        path,
        'schema_too_large',
        `at most ${MAX_SCHEMA_NODES} JSON values in a schema`,
        `more than ${MAX_SCHEMA_NODES}`,
        `${path.join('.')} holds more than ${MAX_SCHEMA_NODES} JSON values (MAX_SCHEMA_NODES); split it or describe fewer properties`,
      );
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
        if (key === 'patternProperties' && child !== null && typeof child === 'object')
          patterns += Object.keys(child).length;
        stack.push(child);
      }
    }
    if (patterns > MAX_SCHEMA_PATTERNS) {
      return detail(
        path,
        'schema_too_large',
        `at most ${MAX_SCHEMA_PATTERNS} patterns in a schema`,
        `more than ${MAX_SCHEMA_PATTERNS}`,
        `${path.join('.')} holds more than ${MAX_SCHEMA_PATTERNS} patterns (pattern keywords and patternProperties keys, MAX_SCHEMA_PATTERNS); use fewer`,
      );
    }
    if (chars > MAX_SCHEMA_CHARS) {
      return detail(
        path,
        'schema_too_large',
        `at most ${MAX_SCHEMA_CHARS} characters of JSON in a schema`,
        `more than ${MAX_SCHEMA_CHARS}`,
        `${path.join('.')} is longer than ${MAX_SCHEMA_CHARS} characters as JSON (MAX_SCHEMA_CHARS); shorten it`,
      );
    }
  }
  // Counted within MAX_SCHEMA_NODES, so the expansion below costs little too.
  return schemaRefProblem(schema, path);
}

/** Most JSON values with every `$ref` inlined: refs multiply checks (20 definitions, each `allOf` two refs to the next: 2^19 runs, 21 s). */
export const MAX_SCHEMA_EXPANDED_NODES = 2_000;

/** Keywords whose values are data, not schemas: a `$ref` or `$id` inside them means nothing to ajv. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose value maps names to schemas (a key there is a name, whatever it is). */
const MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'dependencies',
]);
/** Keywords that only hold schemas for `$ref`s to name: they are not run where they stand. */
const DEFINITION_KEYWORDS = new Set(['definitions', '$defs']);
/** References resolved at run time (2020-12, 2019-09), which can recurse; refused in supplied schemas. */
const REFUSED_REF_KEYWORDS = ['$dynamicRef', '$recursiveRef'];

/**
 * Why a supplied schema's refs are unsafe, or null: a `$ref` is a local pointer that never reaches itself (`{"allOf":[{"$ref":"#"}]}`
 * runs forever), `$id` only at the top, no dynamic refs, at most MAX_SCHEMA_EXPANDED_NODES values inlined (definitions count where named).
 */
function schemaRefProblem(schema: unknown, path: string[]): ErrorDetail | null {
  const where = (at: string[]) => [...path, ...at];
  const named = (at: string[]) => where(at).join('.') || 'the schema';
  const schemaSizes = new Map<object, number>();
  const mapSizes = new Map<object, number>();
  const open = new Set<object>();
  let problem: ErrorDetail | null = null;
  const cap = MAX_SCHEMA_EXPANDED_NODES + 1;

  const resolve = (ref: string, at: string[]): { node: unknown; tokens: string[] } | null => {
    if (ref !== '#' && !ref.startsWith('#/')) {
      problem = detail(
        where(at),
        'invalid_schema',
        'a local $ref: # or a JSON pointer #/…',
        ref,
        `${named(at)} is ${JSON.stringify(ref.slice(0, 200))}: the emulator follows only local references (# or #/definitions/…), never other documents or anchors`,
      );
      return null;
    }
    let tokens: string[];
    try {
      tokens =
        ref === '#'
          ? []
          : decodeURIComponent(ref.slice(2))
              .split('/')
              .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    } catch {
      problem = detail(
        where(at),
        'invalid_schema',
        'a JSON pointer',
        ref,
        `${named(at)} is not a valid JSON pointer`,
      );
      return null;
    }
    let node: unknown = schema;
    for (const token of tokens) {
      if (node === null || typeof node !== 'object') node = undefined;
      else if (Array.isArray(node))
        node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
      else node = Object.hasOwn(node, token) ? (node as Record<string, unknown>)[token] : undefined;
      if (node === undefined) break;
    }
    if (
      node === undefined ||
      node === null ||
      (typeof node !== 'object' && typeof node !== 'boolean') ||
      Array.isArray(node)
    ) {
      problem = detail(
        where(at),
        'invalid_schema',
        'a $ref naming a schema inside this schema',
        ref,
        `${named(at)} (${JSON.stringify(ref.slice(0, 200))}) names no schema inside this schema`,
      );
      return null;
    }
    return { node, tokens };
  };

  /** Values under `node` with refs inlined, capped at `cap`; sets `problem` when unsafe. `kind`: what ajv takes `node` for. */
  const size = (node: unknown, at: string[], kind: 'schema' | 'map' | 'data'): number => {
    if (problem) return cap;
    if (node === null || typeof node !== 'object') return 1;
    if (kind === 'data') {
      let total = 1;
      for (const child of Object.values(node))
        total = Math.min(cap, total + size(child, at, 'data'));
      return total;
    }
    const memo = kind === 'schema' ? schemaSizes : mapSizes;
    const known = memo.get(node);
    if (known !== undefined) return known;
    open.add(node);
    let total = 1;
    if (Array.isArray(node) || kind === 'map') {
      for (const [key, child] of Object.entries(node)) {
        total = Math.min(cap, total + size(child, [...at, key], 'schema'));
        if (problem) return cap;
      }
    } else {
      const record = node as Record<string, unknown>;
      for (const keyword of REFUSED_REF_KEYWORDS) {
        if (typeof record[keyword] === 'string') {
          problem = detail(
            where([...at, keyword]),
            'invalid_schema',
            `no ${keyword}`,
            record[keyword],
            `${named([...at, keyword])}: ${keyword} is not supported in supplied schemas (dynamic references can recurse); use $ref to a definition`,
          );
          return cap;
        }
      }
      if (at.length > 0 && typeof record.$id === 'string') {
        problem = detail(
          where([...at, '$id']),
          'invalid_schema',
          '$id only at the top of a schema',
          record.$id,
          `${named([...at, '$id'])}: a nested $id is not supported in supplied schemas (it changes what # refers to); remove it`,
        );
        return cap;
      }
      for (const [key, child] of Object.entries(record)) {
        const childKind = DATA_KEYWORDS.has(key)
          ? 'data'
          : MAP_KEYWORDS.has(key) && !Array.isArray(child)
            ? 'map'
            : 'schema';
        const childSize = size(child, [...at, key], childKind);
        if (problem) return cap;
        // Definitions run only through a $ref, which is charged their whole size where it stands.
        total = Math.min(cap, total + (DEFINITION_KEYWORDS.has(key) ? 1 : childSize));
      }
      if (typeof record.$ref === 'string') {
        const target = resolve(record.$ref, [...at, '$ref']);
        if (!target) return cap;
        if (open.has(target.node as object)) {
          problem = detail(
            where([...at, '$ref']),
            'schema_recursive',
            'a $ref that does not reach itself',
            record.$ref,
            `${named([...at, '$ref'])} (${JSON.stringify(record.$ref.slice(0, 200))}) refers back to a schema that contains it: recursive schemas are not supported in supplied schemas (they repeat checks at every level of the data); describe a fixed depth instead`,
          );
          return cap;
        }
        total = Math.min(cap, total + size(target.node, target.tokens, 'schema'));
      }
    }
    open.delete(node);
    if (
      !problem &&
      kind === 'schema' &&
      !Array.isArray(node) &&
      total > MAX_SCHEMA_EXPANDED_NODES
    ) {
      problem = detail(
        where(at),
        'schema_too_large',
        `at most ${MAX_SCHEMA_EXPANDED_NODES} JSON values with every $ref inlined`,
        `more than ${MAX_SCHEMA_EXPANDED_NODES}`,
        `${named(at)} holds more than ${MAX_SCHEMA_EXPANDED_NODES} JSON values once every $ref is replaced by the schema it names (MAX_SCHEMA_EXPANDED_NODES); refer to fewer or smaller definitions`,
      );
    }
    memo.set(node, total);
    return total;
  };

  size(schema, [], 'schema');
  return problem;
}

/** Meta-validates a supplied JSON Schema (draft-07 unless `$schema` says 2020-12) and checks it compiles; problems under `path`. */
export function checkJsonSchema(schema: unknown, path: string[]): ErrorDetail[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    if (typeof schema === 'boolean') return [];
    return [
      detail(
        path,
        'invalid_type',
        'object',
        schema,
        `${path.join('.')} must be a JSON Schema object`,
      ),
    ];
  }
  // Before anything compiles or walks it: a schema past the budget is refused at the cost of counting.
  const tooLarge = schemaBudgetProblem(schema, path);
  if (tooLarge) return [tooLarge];
  const draft = draftOf(schema as Record<string, unknown>);
  if (typeof draft === 'string') {
    return [
      detail(
        [...path, '$schema'],
        'invalid_schema',
        draft,
        (schema as Record<string, unknown>).$schema,
        `unsupported $schema: use ${draft}`,
      ),
    ];
  }
  if (!draft.ajv.validateSchema(draft.source)) {
    return (draft.ajv.errors ?? []).map((e) => fromAjv(e, path, 'invalid_schema'));
  }
  try {
    compile(schema as Record<string, unknown>);
  } catch (error) {
    return [
      detail(
        path,
        'invalid_schema',
        'a JSON Schema that compiles',
        schema,
        `${path.join('.')} does not compile: ${(error as Error).message}`,
      ),
    ];
  }
  return [];
}

/** Most validators of supplied schemas kept; past it the least recently used one is dropped. */
const MAX_COMPILED = 1000;
/** Validators by schema text, least recently used first (a Map keeps insertion order). */
const compiled = new Map<
  string,
  { fn: ValidateFunction; ajv: Ajv; source: Record<string, unknown> }
>();

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
    const draft = draftOf(schema);
    if (typeof draft === 'string') throw new RangeError(`the schema's $schema is not ${draft}`);
    // $id clashes between supplied schemas must not break compilation: compile a copy without it.
    const { $id: _ignored, ...source } = draft.source;
    entry = { fn: draft.ajv.compile(source), ajv: draft.ajv, source };
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

/** How many supplied schemas are compiled and kept here (for tests). Ajv's own cache is private to it and not counted. */
export function compiledSchemaCounts(): { validators: number } {
  return { validators: compiled.size };
}

/** Validates a value against a supplied schema; problems come back as error details. */
export function validateAgainst(
  schema: Record<string, unknown>,
  value: unknown,
  path: string[],
): ErrorDetail[] {
  let fn: ValidateFunction;
  try {
    fn = compile(schema);
  } catch (error) {
    // A schema stored before its checks tightened (or imported): the input cannot be judged by it.
    return [
      detail(
        path,
        'invalid_schema',
        'a schema the emulator can run',
        schema,
        `the schema for ${path.join('.') || 'the value'} cannot be used: ${(error as Error).message}`,
      ),
    ];
  }
  // Counted before ajv runs: the checks a value meets can be the schema's size times the body's (issue 36: 37-57 s, a 500).
  const where = path.join('.') || 'the value';
  const work = validationWork(schema, value);
  if (work > MAX_VALIDATION_WORK) {
    return [
      detail(
        path,
        'validation_too_costly',
        `at most ${MAX_VALIDATION_WORK} units of validation work (MAX_VALIDATION_WORK)`,
        `more than ${MAX_VALIDATION_WORK}`,
        `${where}: checking it against its schema would take more than ${MAX_VALIDATION_WORK} units of work (MAX_VALIDATION_WORK: schema checks times values, plus the characters each length check, pattern and format reads); send fewer or shorter values, or a schema that applies fewer checks to each (fewer allOf/$ref repeats)`,
      ),
    ];
  }
  try {
    if (withMatchBudget(() => fn(value))) return [];
  } catch (error) {
    if (!(error instanceof MatchBudgetError)) throw error;
    return [
      detail(
        path,
        'pattern_budget',
        'a value the pattern can be checked against in time',
        value,
        `${path.join('.') || 'the value'}: ${error.message}`,
      ),
    ];
  }
  return reportedErrors(fn.errors ?? [], path);
}

/** Most problems of one value turned into details; the rest are counted in one more detail. */
export const MAX_REPORTED_PROBLEMS = 100;

/** The first MAX_REPORTED_PROBLEMS of ajv's errors as details, then one saying how many more there were (never spread onto the stack). */
function reportedErrors(errors: ErrorObject[], path: string[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const shown = Math.min(errors.length, MAX_REPORTED_PROBLEMS);
  for (let i = 0; i < shown; i++) details.push(fromAjv(errors[i], path, errors[i].keyword));
  const more = errors.length - shown;
  if (more > 0) {
    details.push(
      detail(
        path,
        'more_details',
        `at most ${MAX_REPORTED_PROBLEMS} problems of one value listed`,
        String(errors.length),
        `${path.join('.') || 'the value'} has ${more} more problems, not listed`,
      ),
    );
  }
  return details;
}

/**
 * What fromAjv reads of a validation error: ajv's ErrorObject, or the same error as fastify types it on a failed route schema
 * (FastifySchemaValidationError: no `data`, which ajv adds only when verbose).
 */
export interface ValidationProblem {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  data?: unknown;
}

/** Turns an ajv error into the spec's detail shape. */
export function fromAjv(
  error: ValidationProblem,
  base: string[],
  code = error.keyword,
): ErrorDetail {
  const instance = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = [...base, ...instance];
  let expected = error.keyword;
  const params = error.params;
  if (error.keyword === 'type') expected = String(params.type);
  else if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    expected = params.allowedValues.join(' | ');
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
  if (
    error.keyword === 'format' &&
    typeof error.data === 'string' &&
    isCappedFormatTooLong(String(params.format), error.data)
  ) {
    message = `${where} is longer than ${MAX_FORMAT_LENGTH} characters, the most a format (${String(params.format)}) is checked on`;
  }
  return { code, expected, received: received(error), path, message };
}

function received(error: ValidationProblem): string {
  if (error.keyword === 'required') return 'undefined';
  if (error.keyword === 'additionalProperties') return String(error.params.additionalProperty);
  const data = error.data;
  if (data === undefined) return 'undefined';
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'array';
  return typeof data === 'object' ? 'object' : String(data).slice(0, 200);
}
