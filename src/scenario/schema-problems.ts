import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { EVENT_DATA_SCHEMAS } from '#contract/events';
import { EVENT_KINDS } from '#contract/enum-values';
import { isObject, suggestion, type ScenarioProblem } from './problems.js';

// A scenario's mismatches with its schema, in plain words: what a field must be (never "expected union value"), an
// example, and the fix as a sentence; and a trigger's payload fields its event's data does not have.

/** `/a/0/b` (TypeBox's error path) as `.a[0].b`. */
function jsonPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part.replace(/~1/g, '/')}`))
    .join('');
}

/** The schema keywords the plain words below read. */
export interface SchemaWords {
  type?: string;
  const?: unknown;
  anyOf?: SchemaWords[];
  minLength?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  examples?: unknown[];
  pattern?: string;
  items?: SchemaWords;
  properties?: Record<string, SchemaWords>;
  required?: string[];
  patternProperties?: unknown;
  description?: string;
}

/** What a value of `schema` is, in words: `a whole number from 1 to 600000`, `"agent", "repository" or "app"`. */
export function expectedOf(schema: SchemaWords): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) {
    if (schema.anyOf.length > 8)
      return `an event kind (${schema.anyOf.map((s) => s.const).join(', ')})`;
    return orList(schema.anyOf.map(expectedOf));
  }
  switch (schema.type) {
    case 'string':
      if (schema.pattern) return 'a name: a letter, then letters, digits or "_"';
      return schema.minLength ? 'a string that is not empty' : 'a string';
    case 'integer': {
      const { minimum: min, maximum: max } = schema;
      if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}`;
      if (min !== undefined) return `a whole number of at least ${min}`;
      return 'a whole number';
    }
    case 'boolean':
      return 'true or false';
    case 'array':
      return `a list${schema.items ? ` of ${plural(expectedOf(schema.items))}` : ''}`;
    case 'object': {
      const fields = Object.keys(schema.properties ?? {});
      if (fields.length === 0) return schema.patternProperties ? 'an object' : 'an object: {}';
      const required = fields.filter((f) => schema.required?.includes(f));
      const optional = fields.filter((f) => !schema.required?.includes(f));
      const names = (list: string[]) => andList(list.map((f) => `"${f}"`));
      if (required.length === 0)
        return `an object with any of ${orList(optional.map((f) => `"${f}"`))}`;
      return `an object with ${names(required)}${optional.length ? ` (and optionally ${orList(optional.map((f) => `"${f}"`))})` : ''}`;
    }
    default:
      return 'a value';
  }
}

function orList(parts: string[]): string {
  return parts.length <= 1
    ? (parts[0] ?? '')
    : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

function andList(parts: string[]): string {
  return parts.length <= 1
    ? (parts[0] ?? '')
    : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function plural(words: string): string {
  return words.replace(/^an? (string|whole number)/, (_, noun: string) => `${noun}s`);
}

/** What a value is, in a word: never the value itself (a file may hold what nobody should print). */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number')
    return Number.isInteger(value) ? 'the number ' + value : 'a fraction';
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** A value of `schema` to show in a fix: `5000`, `"…"`, `{ "text": "…" }`. */
export function exampleOf(schema: SchemaWords): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.default !== undefined) return JSON.stringify(schema.default);
  if (schema.examples?.length) return JSON.stringify(schema.examples[0]);
  if (schema.anyOf) return exampleOf(schema.anyOf[0]);
  switch (schema.type) {
    case 'string': {
      const eg = /e\.g\. ([\w.-]+)/.exec(schema.description ?? '');
      return eg ? JSON.stringify(eg[1]) : '"…"';
    }
    case 'integer':
      return /millisecond/i.test(schema.description ?? '')
        ? '1000'
        : String(Math.max(schema.minimum ?? 1, 1));
    case 'boolean':
      return 'false';
    case 'array':
      return schema.items ? `[${exampleOf(schema.items)}]` : '[]';
    case 'object': {
      const required = (schema.required ?? []).filter((f) => schema.properties?.[f]);
      if (required.length === 0) return '{}';
      return `{ ${required.map((f) => `"${f}": ${exampleOf(schema.properties![f])}`).join(', ')} }`;
    }
    default:
      return '…';
  }
}

/** A schema's description to follow a sentence after a colon: lower-cased first letter. */
function meaning(schema: SchemaWords): string {
  const text = schema.description ?? '';
  return text ? `: ${text.charAt(0).toLowerCase()}${text.slice(1)}` : '';
}

/** The fix of a value of the wrong type: the field written with a value it takes. */
function typeFix(expected: SchemaWords, field: string): string {
  // An item of a list: the value alone.
  if (/^\d+$/.test(field)) return `write ${exampleOf(expected)} in its place`;
  const alternatives = expected.anyOf ?? [];
  if (alternatives.length > 3 && alternatives.every((s) => s.const !== undefined))
    return `write one of them, e.g. "${field}": ${exampleOf(expected)}`;
  if (alternatives.length > 0)
    return `write ${orList(alternatives.map((s) => `"${field}": ${exampleOf(s)}`))}`;
  return `write "${field}": ${exampleOf(expected)}`;
}

/** The field an error path ends at, as a newcomer names it: `withinMs`, `events[1]`. */
function fieldName(pointer: string, top: string): string {
  const parts = pointer.split('/').slice(1);
  let name = top;
  for (const part of parts) name = /^\d+$/.test(part) ? `${name}[${part}]` : part;
  return name;
}

/** How many problems one part of a scenario (a step's body, an expectation, a payload) is told: enough to fix first. */
export const MAX_PROBLEMS_PER_PART = 100;

/**
 * Every mismatch of `value` with `schema`, each once, under `at`, in plain words: what is missing or
 * what the field must be (never "expected union value"), and the fix as a sentence.
 */
export function schemaProblems(
  schema: TSchema,
  value: unknown,
  at: string,
  top: string,
  skip: (pointer: string) => boolean = () => false,
): ScenarioProblem[] {
  const seen = new Set<string>();
  const out: ScenarioProblem[] = [];
  const properties = (schema as SchemaWords).properties ?? {};
  const known = Object.keys(properties);
  for (const error of Value.Errors(schema, value)) {
    // Enough to fix first: a step of 300,000 unknown fields would otherwise give as many problems.
    if (out.length >= MAX_PROBLEMS_PER_PART) break;
    if (skip(error.path)) continue;
    const path = at + jsonPath(error.path);
    if (seen.has(path)) continue;
    seen.add(path);
    const parts = error.path.split('/');
    const field = parts.at(-1) ?? '';
    if (error.value !== undefined && parts.length === 2 && !(field in properties)) {
      out.push({
        path,
        message: `"${field}" is not a field of ${top}`,
        fix: `${suggestion(field, known)}remove it (the fields of ${top}: ${known.join(', ') || 'none'})`,
      });
      continue;
    }
    const expected = error.schema as SchemaWords;
    const name = fieldName(error.path, top);
    if (error.value === undefined && parts.length >= 2) {
      const parent = parts.length === 2 ? top : fieldName(parts.slice(0, -1).join('/'), top);
      out.push({
        path,
        message: `${parent} is missing "${field}"${meaning(expected)}`,
        fix: `add "${field}": ${exampleOf(expected)} to ${parent}`,
      });
      continue;
    }
    if (error.value === '' && expected.type === 'string' && expected.minLength) {
      out.push({
        path,
        message: `"${name}" is empty${meaning(expected)}`,
        fix:
          parts.length === 2 && !(schema as SchemaWords).required?.includes(field)
            ? `write something in "${field}", or leave "${field}" out`
            : `write something in "${field || top}"`,
      });
      continue;
    }
    // A string where an object with a string field goes (`"reply": "hi"`): the object it takes.
    const textField = Object.entries(expected.properties ?? {}).find(
      ([, f]) => f.type === 'string',
    );
    if (typeof error.value === 'string' && expected.type === 'object' && textField) {
      out.push({
        path,
        message: `"${name}" must be ${expectedOf(expected)}, not a string`,
        fix: `write "${field || top}": { "${textField[0]}": "…" }`,
      });
      continue;
    }
    out.push({
      path,
      message: `"${name}" must be ${expectedOf(expected)}, not ${kindOf(error.value)}`,
      fix: typeFix(expected, field || top),
    });
  }
  return out;
}

/** A schema part's `properties`, when it has them. */
function propertiesOf(part: TSchema): Record<string, TSchema> | undefined {
  const { properties } = part as { properties?: Record<string, TSchema> };
  return properties;
}

/** The schema under `path` of an event's data, or undefined when the path leaves it (a field it does not have). `null`: anything goes below. */
function schemaAt(schema: TSchema, path: string[]): TSchema | null | undefined {
  let node: TSchema = schema;
  for (const key of path) {
    const s = node as {
      type?: string;
      properties?: Record<string, TSchema>;
      allOf?: TSchema[];
      items?: TSchema;
      anyOf?: TSchema[];
      patternProperties?: Record<string, TSchema>;
    };
    if (s.allOf) {
      // The open file record: its fields, and any other.
      const withField = s.allOf.map(propertiesOf).find((fields) => fields?.[key] !== undefined);
      if (withField) {
        node = withField[key];
        continue;
      }
      return null;
    }
    if (s.anyOf) {
      const object = s.anyOf.find(
        (part) =>
          (part as { type?: string }).type === 'object' ||
          (part as { type?: string }).type === 'array',
      );
      if (!object) return undefined;
      node = object;
    }
    const current = node as typeof s;
    if (current.type === 'array' && current.items) {
      if (!/^\d+$/.test(key)) return undefined;
      node = current.items;
      continue;
    }
    if (current.properties) {
      if (!(key in current.properties)) return current.patternProperties ? null : undefined;
      node = current.properties[key];
      continue;
    }
    if (current.patternProperties) return null;
    return undefined;
  }
  return node;
}

/** The leaf paths of a payload (`{message: {content: "x"}}` gives ['message', 'content']), added to `out`. */
function leafPaths(
  value: Record<string, unknown>,
  prefix: string[] = [],
  out: string[][] = [],
): string[][] {
  for (const [key, inner] of Object.entries(value)) {
    if (isObject(inner) && Object.keys(inner).length > 0) leafPaths(inner, [...prefix, key], out);
    else out.push([...prefix, key]);
  }
  return out;
}

/** The first field of `path` that `event`'s data does not have, in words; undefined when it has them all (or is open there). */
export function unknownDataField(
  event: keyof typeof EVENT_DATA_SCHEMAS,
  path: string[],
): { field: string; message: string; fix: string } | undefined {
  const schema = EVENT_DATA_SCHEMAS[event];
  for (let depth = 1; depth <= path.length; depth++) {
    const found = schemaAt(schema, path.slice(0, depth));
    if (found === null) return undefined;
    if (found !== undefined) continue;
    const parent = schemaAt(schema, path.slice(0, depth - 1)) as {
      properties?: Record<string, unknown>;
    } | null;
    const fields = Object.keys(parent?.properties ?? {});
    const field = path.slice(0, depth).join('.');
    return {
      field,
      message: `${event}'s data has no field "${field}"`,
      fix: `${suggestion(path[depth - 1], fields)}use one of its fields${fields.length ? ` (${fields.join(', ')})` : ''}`,
    };
  }
  return undefined;
}

/** Payload fields the event's data does not have: errors, never silently ignored. */
export function payloadProblems(event: string, payload: unknown, at: string): ScenarioProblem[] {
  if (!isObject(payload) || !(EVENT_KINDS as readonly string[]).includes(event)) return [];
  const out: ScenarioProblem[] = [];
  for (const path of leafPaths(payload)) {
    if (out.length >= MAX_PROBLEMS_PER_PART) break;
    const unknown = unknownDataField(event as keyof typeof EVENT_DATA_SCHEMAS, path);
    if (unknown)
      out.push({ path: `${at}.${unknown.field}`, message: unknown.message, fix: unknown.fix });
  }
  return out;
}
