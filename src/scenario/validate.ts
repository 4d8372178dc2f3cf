import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { EVENT_DATA_SCHEMAS } from '#contract/events';
import { EVENT_KINDS } from '#contract/enum-values';
import { linearPatternProblem } from '../shared/linear-pattern.js';
import { closest } from '../ui/did-you-mean.js';
import {
  EXPECTATION_KIND_NAMES,
  EXPECTATION_KINDS,
  STEP_KIND_NAMES,
  STEP_KINDS,
  isExpectationOf,
  typedExpectation,
  typedStep,
  type Expectation,
  type ExpectationBody,
  type ExpectationKind,
  type Scenario,
  type Step,
  type StepKind,
} from './schema.js';
import { ENV_NAME, referencesIn } from './references.js';
import { isRequestResultField, requestPathProblem } from './steps/request.js';
import { ALLOW_ENV_VARIABLE } from './allow-env.js';

/** One thing wrong with a scenario file: where (a JSON path such as `steps[2].message.text`), what, and how to fix it. */
export interface ScenarioProblem {
  path: string;
  message: string;
  fix: string;
  /** Where in the file's text (1-based), when read from a file: the path's, or its nearest ancestor's that the text has. */
  line?: number;
  column?: number;
}

/** How many problems of a file are shown; past them, how many more there are. */
export const MAX_PROBLEMS_SHOWN = 50;

/** The problems as people read them: each with its path, line and column, and fix; at most {@link MAX_PROBLEMS_SHOWN}. */
export function problemText(problems: ScenarioProblem[], indent = '  '): string {
  const lines = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => {
    // A problem of the whole file (`$`, a syntax error) says where in its message.
    const where =
      p.line === undefined || p.path === '$' ? '' : ` (line ${p.line}, column ${p.column})`;
    return `${indent}${p.path}${where}: ${p.message}\n${indent}  fix: ${p.fix}`;
  });
  const more = problems.length - MAX_PROBLEMS_SHOWN;
  if (more > 0)
    lines.push(
      `${indent}… and ${more} more problem${more === 1 ? '' : 's'} (fix these first, or see them all with --json)`,
    );
  return lines.join('\n');
}

/** A scenario that can run, or every problem of the file at once. */
export type Validated =
  | { ok: true; scenario: Scenario; problems: [] }
  | { ok: false; scenario: null; problems: ScenarioProblem[] };

const TOP_FIELDS = ['$schema', 'name', 'description', 'plugin', 'env', 'steps'];
const STEP_FIELDS = new Set(['id', 'expect']);
const STEP_ID = /^[A-Za-z][A-Za-z0-9_]*$/;

function suggestion(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  return near.length ? `did you mean ${near.map((n) => `"${n}"`).join(' or ')}? ` : '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `/a/0/b` (TypeBox's error path) as `.a[0].b`. */
function jsonPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part.replace(/~1/g, '/')}`))
    .join('');
}

/** The schema keywords the plain words below read. */
interface SchemaWords {
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
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number')
    return Number.isInteger(value) ? 'the number ' + value : 'a fraction';
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** A value of `schema` to show in a fix: `5000`, `"…"`, `{ "text": "…" }`. */
function exampleOf(schema: SchemaWords): string {
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

/**
 * Every mismatch of `value` with `schema`, each once, under `at`, in plain words: what is missing or
 * what the field must be (never "expected union value"), and the fix as a sentence.
 */
function schemaProblems(
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

/** The leaf paths of a payload (`{message: {content: "x"}}` gives ['message', 'content']). */
function leafPaths(value: Record<string, unknown>, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [key, inner] of Object.entries(value)) {
    if (isObject(inner) && Object.keys(inner).length > 0)
      out.push(...leafPaths(inner, [...prefix, key]));
    else out.push([...prefix, key]);
  }
  return out;
}

/** Payload fields the event's data does not have: errors, never silently ignored. */
function payloadProblems(event: string, payload: unknown, at: string): ScenarioProblem[] {
  if (!isObject(payload) || !(EVENT_KINDS as readonly string[]).includes(event)) return [];
  const schema = EVENT_DATA_SCHEMAS[event as keyof typeof EVENT_DATA_SCHEMAS];
  const out: ScenarioProblem[] = [];
  for (const path of leafPaths(payload)) {
    for (let depth = 1; depth <= path.length; depth++) {
      const found = schemaAt(schema, path.slice(0, depth));
      if (found === null) break;
      if (found !== undefined) continue;
      const parent = schemaAt(schema, path.slice(0, depth - 1)) as {
        properties?: Record<string, unknown>;
      } | null;
      const fields = Object.keys(parent?.properties ?? {});
      const field = path[depth - 1];
      out.push({
        path: `${at}.${path.slice(0, depth).join('.')}`,
        message: `${event}'s data has no field "${path.slice(0, depth).join('.')}"`,
        fix: `${suggestion(field, fields)}use one of its fields${fields.length ? ` (${fields.join(', ')})` : ''}`,
      });
      break;
    }
  }
  return out;
}

/** Each `${…}` in the strings of `value` (not an escaped `$${`), with the JSON path of the string. */
function references(value: unknown, at: string): Array<{ path: string; reference: string }> {
  if (typeof value === 'string')
    return referencesIn(value).map((reference) => ({ path: at, reference }));
  if (Array.isArray(value)) return value.flatMap((item, i) => references(item, `${at}[${i}]`));
  if (isObject(value))
    return Object.entries(value).flatMap(([key, inner]) => references(inner, `${at}.${key}`));
  return [];
}

/** A reference's problem, or null when it names something that will be there. */
function referenceProblem(
  reference: string,
  path: string,
  earlier: Map<string, StepKind | null>,
  later: Set<string>,
  declared: ReadonlySet<string>,
  env: Record<string, string | undefined> | undefined,
  allowedEnv: ReadonlySet<string> | undefined,
): ScenarioProblem | null {
  const [head, ...rest] = reference.split('.');
  const field = rest.join('.');
  if (head === 'unique' && rest.length === 0) return null;
  if (head === 'run' && field === 'id') return null;
  if (head === 'env') {
    if (!ENV_NAME.test(field))
      return {
        path,
        message: `"\${${reference}}" names no environment variable`,
        fix: 'write "${env.NAME}", or "$${…}" for a literal "${…}"',
      };
    if (!declared.has(field))
      return {
        path,
        message: `"\${${reference}}": the scenario does not declare the environment variable ${field}`,
        fix: `add "env": [${[...declared, field].map((name) => JSON.stringify(name)).join(', ')}] at the top of the file to pass it, or write "$\${env.${field}}" for the literal text`,
      };
    // A name the run does not allow is one problem of its own (notAllowed), not also "not set" at each use.
    if (env && env[field] === undefined && (!allowedEnv || allowedEnv.has(field)))
      return {
        path,
        message: `"\${${reference}}": the environment variable ${field} is not set`,
        fix: `set ${field}, or write the value in the file`,
      };
    return null;
  }
  const kind = earlier.get(head);
  if (kind === undefined) {
    const where = later.has(head)
      ? `step "${head}" comes later: a step can only name steps before it`
      : `no step has the id "${head}"`;
    return {
      path,
      message: `"\${${reference}}" names step "${head}", but ${where}`,
      fix: `${suggestion(head, [...earlier.keys()])}name an earlier step's id (${[...earlier.keys()].join(', ') || 'none has one: give the step an "id"'}), or use \${env.NAME}, \${run.id}, \${unique}`,
    };
  }
  // A step with problems of its own: they are told; what its result has cannot be.
  if (kind === null) return null;
  const results = STEP_KINDS[kind].results as readonly string[];
  if (kind === 'request' ? !isRequestResultField(field) : !results.includes(field))
    return {
      path,
      message: `"\${${reference}}": a ${kind} step's result has no "${field}"`,
      fix: `${suggestion(field, results)}use one of ${results.map((r) => `${head}.${r}`).join(', ') || '(none: a ' + kind + ' step has no result)'}`,
    };
  return null;
}

/**
 * Checks a parsed scenario file: every problem at once, each with its JSON path and a fix (an
 * unknown step kind or event kind gets "did you mean", a reference to an unknown step names it, a
 * payload field the event does not have is an error). `env` given: `${env.NAME}` must be set in it.
 * `allowedEnv` given: every name the file declares must be among them (src/scenario/allow-env.ts).
 */
export function validateScenario(
  input: unknown,
  env?: Record<string, string | undefined>,
  allowedEnv?: ReadonlySet<string>,
): Validated {
  const problems: ScenarioProblem[] = [];
  if (!isObject(input)) {
    return {
      ok: false,
      scenario: null,
      problems: [
        {
          path: '$',
          message: 'a scenario is a JSON object',
          fix: 'write { "name": "…", "steps": [ … ] }',
        },
      ],
    };
  }
  // Before any recursive walk (TypeBox's, the references', the runner's): a file nested 50,000 deep would overflow the stack.
  const tooDeep = deeperThan(input, MAX_DEPTH);
  if (tooDeep)
    return {
      ok: false,
      scenario: null,
      problems: [nestedProblem(tooDeep)],
    };
  for (const key of Object.keys(input)) {
    if (!TOP_FIELDS.includes(key))
      problems.push({
        path: key,
        message: `"${key}" is not a scenario field`,
        fix: `${suggestion(key, TOP_FIELDS)}remove it (fields: ${TOP_FIELDS.join(', ')})`,
      });
  }
  if (typeof input.name !== 'string' || input.name.trim() === '')
    problems.push({
      path: 'name',
      message: 'the scenario has no name',
      fix: 'add "name": "a short sentence of what it proves"',
    });
  else if (input.name.includes(','))
    problems.push({
      path: 'name',
      message: 'the name has a comma',
      fix: 'write the name without a comma: `plugsmith logs --scenario NAME` reads a comma as "or"',
    });
  for (const field of ['description', 'plugin', '$schema']) {
    if (input[field] !== undefined && typeof input[field] !== 'string')
      problems.push({
        path: field,
        message: `"${field}" must be a string, not ${kindOf(input[field])}`,
        fix: `write "${field}": "…"`,
      });
  }
  const declared = declaredEnv(input.env, problems);
  if (allowedEnv) problems.push(...notAllowed(declared, allowedEnv));
  const steps: Step[] = [];
  if (!Array.isArray(input.steps) || input.steps.length === 0) {
    problems.push({
      path: 'steps',
      message: 'the scenario has no steps',
      fix: `add "steps": [ { "<kind>": { … } } ] (kinds: ${STEP_KIND_NAMES.join(', ')})`,
    });
  } else {
    // Every step is checked, a bad one too: its references and its id count, so that one mistake
    // neither hides the next nor makes later steps' references to it look wrong.
    const ids = new Map<string, StepKind | null>();
    const allIds = new Set(
      input.steps
        .filter(isObject)
        .map((s) => s.id)
        .filter((id): id is string => typeof id === 'string'),
    );
    input.steps.forEach((raw, index) => {
      const at = `steps[${index}]`;
      const step = checkStep(raw, at, problems);
      if (!isObject(raw)) return;
      const { id, ...written } = raw;
      for (const { path, reference } of references(written, at)) {
        const problem = referenceProblem(reference, path, ids, allIds, declared, env, allowedEnv);
        if (problem) problems.push(problem);
      }
      if (typeof id === 'string' && STEP_ID.test(id)) {
        if (ids.has(id))
          problems.push({
            path: `${at}.id`,
            message: `two steps have the id "${id}"`,
            fix: 'give each step its own id',
          });
        ids.set(id, step?.kind ?? kindOfStep(raw));
      }
      if (step) steps.push(step);
    });
  }
  if (problems.length) return { ok: false, scenario: null, problems };
  return {
    ok: true,
    problems: [],
    scenario: {
      name: String(input.name),
      ...(typeof input.description === 'string' ? { description: input.description } : {}),
      ...(typeof input.plugin === 'string' ? { plugin: input.plugin } : {}),
      ...(declared.size ? { env: [...declared] } : {}),
      steps,
    },
  };
}

/** The environment variables the file declares (`"env": ["NAME"]`): the only ones `${env.NAME}` may expand. */
function declaredEnv(raw: unknown, problems: ScenarioProblem[]): Set<string> {
  const declared = new Set<string>();
  if (raw === undefined) return declared;
  if (!Array.isArray(raw)) {
    problems.push({
      path: 'env',
      message: 'env takes a list of environment variable names',
      fix: 'write "env": ["NAME"]',
    });
    return declared;
  }
  raw.forEach((name, index) => {
    if (typeof name === 'string' && ENV_NAME.test(name)) declared.add(name);
    else
      problems.push({
        path: `env[${index}]`,
        message: `${JSON.stringify(name)} is not an environment variable name`,
        fix: 'write a name of a letter or "_" followed by letters, digits or "_", e.g. "API_BASE"',
      });
  });
  return declared;
}

/** A problem for each declared variable the person running did not allow: the file alone never passes one. */
function notAllowed(
  declared: ReadonlySet<string>,
  allowed: ReadonlySet<string>,
): ScenarioProblem[] {
  return [...declared]
    .filter((name) => !allowed.has(name))
    .map((name) => ({
      path: 'env',
      message: `the scenario asks for the environment variable ${name}, which this run does not pass (its steps would send the value where they say)`,
      fix: `if you trust this file with ${name}, allow it: --allow-env ${name}, or ${ALLOW_ENV_VARIABLE}=${name} in your shell or CI job (for the MCP server, in the environment its client starts it with)`,
    }));
}

/** How deep a scenario's objects and lists may nest (a step's payload or inputs sit at about 5). */
export const MAX_DEPTH = 64;

/** The problem of a scenario nested deeper than MAX_DEPTH at `path`. */
export function nestedProblem(path: string): ScenarioProblem {
  return {
    path,
    message: `the scenario is nested more than ${MAX_DEPTH} levels deep here`,
    fix: `flatten it: a scenario's objects and lists nest at most ${MAX_DEPTH} deep`,
  };
}

/** The JSON path of the first object or list below `limit` levels, or null; walked without recursion. */
function deeperThan(value: unknown, limit: number): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value, path: '', depth: 0 },
  ];
  while (stack.length > 0) {
    const { value: node, path, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return path || '$';
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries())
        stack.push({ value: item, path: `${path}[${index}]`, depth: depth + 1 });
    } else
      for (const [key, item] of Object.entries(node))
        stack.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
  }
  return null;
}

function isStepKind(key: string): key is StepKind {
  return (STEP_KIND_NAMES as string[]).includes(key);
}

/** The one step kind a step names, or null (none, or several). */
function kindOfStep(raw: Record<string, unknown>): StepKind | null {
  const kinds = Object.keys(raw).filter(isStepKind);
  return kinds.length === 1 ? kinds[0] : null;
}

/** One step, or null after its problems were added; every problem of the step is added, not only its first. */
function checkStep(raw: unknown, at: string, problems: ScenarioProblem[]): Step | null {
  if (!isObject(raw)) {
    problems.push({
      path: at,
      message: `a step is an object, not ${kindOf(raw)}`,
      fix: `write { "<kind>": { … } } (kinds: ${STEP_KIND_NAMES.join(', ')})`,
    });
    return null;
  }
  const keys = Object.keys(raw).filter((key) => !STEP_FIELDS.has(key));
  const kinds = keys.filter(isStepKind);
  const before = problems.length;
  if (raw.id !== undefined && (typeof raw.id !== 'string' || !STEP_ID.test(raw.id)))
    problems.push({
      path: `${at}.id`,
      message:
        typeof raw.id === 'string'
          ? `the id ${JSON.stringify(raw.id)} is not a name`
          : `the id must be a name, not ${kindOf(raw.id)}`,
      fix: 'write a letter, then letters, digits or "_" (e.g. "conv")',
    });
  for (const key of keys.filter((k) => !isStepKind(k)))
    problems.push({
      path: `${at}.${key}`,
      message: `"${key}" is not a step kind`,
      fix: `${suggestion(key, [...STEP_KIND_NAMES, 'id', 'expect'])}use one of ${STEP_KIND_NAMES.join(', ')}`,
    });
  if (keys.length === 0)
    problems.push({
      path: at,
      message: 'the step does nothing: it has no kind',
      fix: `give it one kind: ${STEP_KIND_NAMES.join(', ')}`,
    });
  if (kinds.length > 1)
    problems.push({
      path: at,
      message: `the step has ${kinds.length} kinds (${kinds.join(', ')})`,
      fix: 'split it into several steps: one kind per step',
    });
  const kind = kinds.length === 1 ? kinds[0] : null;
  const body = kind ? raw[kind] : undefined;
  if (kind) checkStepBody(kind, body, `${at}.${kind}`, problems);
  const expect = checkExpectations(raw.expect, `${at}.expect`, kind, body, problems);
  if (problems.length > before || !kind || !isObject(body)) return null;
  const step = typedStep(kind, body, {
    ...(typeof raw.id === 'string' ? { id: raw.id } : {}),
    expect,
  });
  // Checked against the same schema above: a body that passed it and failed this would be a bug of this file.
  if (!step) throw new Error(`${at}.${kind}: the step passed validation but not its schema`);
  return step;
}

/** The problems of a step's own object (`"message": { … }`). */
function checkStepBody(
  kind: StepKind,
  body: unknown,
  at: string,
  problems: ScenarioProblem[],
): void {
  if (!isObject(body)) {
    problems.push({
      path: at,
      message: `${kind} takes an object, not ${kindOf(body)}`,
      fix: `write "${kind}": ${kind === 'rotateSecret' ? '{}' : exampleOf(STEP_KINDS[kind].schema as SchemaWords)}`,
    });
    return;
  }
  const unknownEvent =
    kind === 'trigger' &&
    typeof body.event === 'string' &&
    !(EVENT_KINDS as readonly string[]).includes(body.event);
  if (unknownEvent)
    problems.push({
      path: `${at}.event`,
      message: `"${body.event}" is not an event kind`,
      fix: `${suggestion(String(body.event), EVENT_KINDS)}use one of ${EVENT_KINDS.join(', ')}`,
    });
  // The rest of the object is checked too; an unknown event is told once, above.
  problems.push(
    ...schemaProblems(STEP_KINDS[kind].schema, body, at, kind, (pointer) =>
      unknownEvent ? pointer === '/event' : false,
    ),
  );
  if (kind === 'trigger')
    problems.push(...payloadProblems(String(body.event), body.payload, `${at}.payload`));
  if (kind === 'addFile' && body.content === undefined && body.path === undefined)
    problems.push({
      path: at,
      message: 'the file has neither content nor path',
      fix: 'add "content": "…" or "path": "file to upload"',
    });
  if (kind === 'request' && typeof body.path === 'string') {
    // As written (references left in); the runner checks the path again once they are expanded.
    const problem = requestPathProblem(body.path, false);
    if (problem)
      problems.push({
        path: `${at}.path`,
        message: problem,
        fix: 'write the path of the platform\'s API, e.g. "/api/plugins/${plug.data.id}", and the query as "query": { … }',
      });
  }
}

/** Expectations that name what a step of this kind cannot cause. */
const NEEDS_MESSAGE: ExpectationKind[] = ['reply', 'replies', 'none'];

function isExpectationKind(key: string): key is ExpectationKind {
  return (EXPECTATION_KIND_NAMES as string[]).includes(key);
}

/** A step's expectations, each checked (every problem added); those without problems returned. */
function checkExpectations(
  raw: unknown,
  at: string,
  kind: StepKind | null,
  stepBody: unknown,
  problems: ScenarioProblem[],
): Expectation[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push({
      path: at,
      message: `expect takes a list, not ${kindOf(raw)}`,
      fix: 'write "expect": [ { "reply": { "text": "…" } } ]',
    });
    return [];
  }
  const out: Expectation[] = [];
  const indexes: number[] = [];
  raw.forEach((item, index) => {
    const here = `${at}[${index}]`;
    if (!isObject(item) || Object.keys(item).length === 0) {
      problems.push({
        path: here,
        message: isObject(item)
          ? 'the expectation is empty: it has no kind'
          : `an expectation is an object, not ${kindOf(item)}`,
        fix: `write { "<kind>": { … } } (kinds: ${EXPECTATION_KIND_NAMES.join(', ')})`,
      });
      return;
    }
    const names = Object.keys(item);
    if (names.length > 1)
      problems.push({
        path: here,
        message: `the expectation has ${names.length} kinds (${names.join(', ')})`,
        fix: `split it: one kind per expectation, e.g. ${names.map((n) => `{ "${n}": … }`).join(', ')}`,
      });
    for (const name of names) {
      if (!isExpectationKind(name)) {
        problems.push({
          path: `${here}.${name}`,
          message: `"${name}" is not an expectation`,
          fix: `${suggestion(name, EXPECTATION_KIND_NAMES)}use one of ${EXPECTATION_KIND_NAMES.join(', ')}`,
        });
        continue;
      }
      const before = problems.length;
      checkExpectation(name, item[name], `${here}.${name}`, kind, stepBody, problems);
      const expectation =
        names.length === 1 && problems.length === before
          ? typedExpectation(name, item[name])
          : null;
      if (expectation) {
        out.push(expectation);
        indexes.push(index);
      }
    }
  });
  problems.push(...contradictions(out, indexes, at));
  return out;
}

const is2xx = (status: unknown) =>
  status === undefined ||
  status === '2xx' ||
  (typeof status === 'number' && status >= 200 && status < 300);

/**
 * Expectations of one step that cannot all hold: a reply and none, counts that differ, a delivery
 * that must both fail and not be retried… Each is a problem: the step could never pass (or one
 * of them would be silently left unchecked).
 */
function contradictions(
  expectations: Expectation[],
  indexes: number[],
  at: string,
): ScenarioProblem[] {
  const out: ScenarioProblem[] = [];
  const where = (i: number) => `${at}[${indexes[i]}].${expectations[i].kind}`;
  const named = (i: number) => `expect[${indexes[i]}]`;
  const replies = ofKind(expectations, 'reply');
  const counts = ofKind(expectations, 'replies');
  const nones = ofKind(expectations, 'none');
  for (const none of nones) {
    for (const reply of replies)
      out.push({
        path: where(none.i),
        message: `"none" expects no reply, but ${named(reply.i)} expects one ("reply"): the step cannot pass both`,
        fix: 'keep one of them: "reply" to check the answer, or "none" to check that the plugin stays silent',
      });
    for (const count of counts.filter((c) => c.body.count > 0))
      out.push({
        path: where(none.i),
        message: `"none" expects no reply, but ${named(count.i)} expects ${count.body.count} ("replies")`,
        fix: 'keep one of them: "replies" with "count": 0 says the same as "none"',
      });
  }
  for (const count of counts) {
    if (count.body.count === 0)
      for (const reply of replies)
        out.push({
          path: where(count.i),
          message: `"replies" expects none ("count": 0), but ${named(reply.i)} expects a reply`,
          fix: 'keep one of them, or give the number of replies the plugin writes',
        });
    const texts = new Set(replies.map((r) => r.body.text).filter((t) => t !== undefined));
    if (count.body.count > 0 && texts.size > count.body.count)
      out.push({
        path: where(count.i),
        message: `"replies" expects ${count.body.count}, but the step expects ${texts.size} different reply texts`,
        fix: 'make the count the number of replies the plugin writes, or expect fewer texts',
      });
    const other = counts.find((c) => c.i < count.i && c.body.count !== count.body.count);
    if (other)
      out.push({
        path: where(count.i),
        message: `"replies" expects ${count.body.count}, but ${named(other.i)} expects ${other.body.count}`,
        fix: 'keep one "replies" per step',
      });
  }
  for (const reply of replies)
    if (reply.body.text !== undefined && reply.body.pattern !== undefined)
      out.push({
        path: where(reply.i),
        message: '"reply" gives both "text" and "pattern": only "text" would be checked',
        fix: 'keep one: "text" for the exact reply, "pattern" for a reply that matches',
      });
  const deliveries = ofKind(expectations, 'delivery');
  for (const delivery of deliveries) {
    const b = delivery.body;
    if (b.count === 0) {
      const judged = (['status', 'retried', 'withinMs'] as const).filter((f) => b[f] !== undefined);
      if (judged.length)
        out.push({
          path: where(delivery.i),
          message: `"delivery" expects no delivery ("count": 0), so its ${judged.map((f) => `"${f}"`).join(' and ')} cannot be checked`,
          fix: `remove ${judged.map((f) => `"${f}"`).join(' and ')}, or expect the deliveries the step causes`,
        });
    }
    if (b.retried === false && !is2xx(b.status))
      out.push({
        path: where(delivery.i),
        message: `"delivery" expects the plugin to answer ${String(b.status)} and not to be retried, but an answer that is not a 2xx is retried`,
        fix: 'remove "retried": false, or expect "status": "2xx"',
      });
    if (b.type === 'WEBHOOK_CHALLENGE')
      out.push({
        path: `${where(delivery.i)}.type`,
        message:
          "a step's deliveries never include WEBHOOK_CHALLENGE: the platform sends it when the webhook URL is verified",
        fix: 'expect another event, or leave "type" out',
      });
    const other = deliveries.find(
      (d) =>
        d.i < delivery.i &&
        d.body.type === b.type &&
        ((d.body.count !== undefined && b.count !== undefined && d.body.count !== b.count) ||
          (d.body.status !== undefined && b.status !== undefined && d.body.status !== b.status)),
    );
    if (other)
      out.push({
        path: where(delivery.i),
        message: `"delivery" and ${named(other.i)} expect ${b.type ? `the ${String(b.type)} deliveries` : 'the deliveries'} to have a different ${other.body.count !== b.count && b.count !== undefined && other.body.count !== undefined ? '"count"' : '"status"'}`,
        fix: `keep one "delivery" ${b.type ? `of ${String(b.type)} ` : ''}per step, or give each a different "type"`,
      });
  }
  return out;
}

/** The expectations of one kind, each with its index among `expectations`. */
function ofKind<K extends ExpectationKind>(
  expectations: Expectation[],
  kind: K,
): Array<{ body: ExpectationBody<K>; i: number }> {
  return expectations.flatMap((expectation, i) =>
    isExpectationOf(expectation, kind) ? [{ body: expectation.body, i }] : [],
  );
}

/** The problems of one expectation's object (`"reply": { … }`) on a step of `kind`. */
function checkExpectation(
  name: ExpectationKind,
  body: unknown,
  at: string,
  kind: StepKind | null,
  stepBody: unknown,
  problems: ScenarioProblem[],
): void {
  problems.push(...schemaProblems(EXPECTATION_KINDS[name], body, at, name));
  if (NEEDS_MESSAGE.includes(name) && kind && kind !== 'message') {
    const event = kind === 'trigger' && isObject(stepBody) ? stepBody.event : undefined;
    if (kind !== 'trigger' || (typeof event === 'string' && event !== 'AGENT_MESSAGE_RECEIVED'))
      problems.push({
        path: at,
        message: `a ${kind === 'trigger' ? `trigger of ${String(event)}` : `${kind} step`} causes no reply to check`,
        fix: 'put reply, replies and none on a message step (or a trigger of AGENT_MESSAGE_RECEIVED)',
      });
  }
  if (!isObject(body)) return;
  if (name === 'reply' && typeof body.pattern === 'string') {
    const problem = linearPatternProblem(body.pattern);
    if (problem)
      problems.push({
        path: `${at}.pattern`,
        message: `not a pattern RE2 can run: ${problem}`,
        fix: 'fix the pattern (RE2 syntax: no backreferences or lookaround), or give "text" instead',
      });
  }
  if (name === 'file' && (body.written === undefined) === (body.updated === undefined))
    problems.push({
      path: at,
      message: 'a file expectation names either written or updated',
      fix: 'give one of "written": "name" or "updated": "name"',
    });
}
