import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { EVENT_DATA_SCHEMAS } from '../shared/contract/events.js';
import { EVENT_KINDS } from '../shared/contract/enum-values.js';
import { linearPatternProblem } from '../shared/linear-pattern.js';
import { closest } from '../ui/did-you-mean.js';
import {
  EXPECTATION_KIND_NAMES,
  EXPECTATION_KINDS,
  STEP_KIND_NAMES,
  STEP_KINDS,
  type Expectation,
  type ExpectationKind,
  type Scenario,
  type Step,
  type StepKind,
} from './schema.js';
import { ENV_NAME, referencesIn } from './references.js';
import { isRequestResultField, requestPathProblem } from './steps/request.js';

/** One thing wrong with a scenario file: where (a JSON path such as `steps[2].message.text`), what, and how to fix it. */
export interface ScenarioProblem {
  path: string;
  message: string;
  fix: string;
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

/** Every mismatch of `value` with `schema`, each once, under `at`. */
function schemaProblems(schema: TSchema, value: unknown, at: string): ScenarioProblem[] {
  const seen = new Set<string>();
  const out: ScenarioProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    const path = at + jsonPath(error.path);
    if (seen.has(path)) continue;
    seen.add(path);
    const field = error.path.split('/').at(-1) ?? '';
    const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
    const known = Object.keys(properties);
    if (error.value !== undefined && error.path.split('/').length === 2 && !(field in properties)) {
      out.push({
        path,
        message: `"${field}" is not a field here`,
        fix: `${suggestion(field, known)}remove it (fields: ${known.join(', ') || 'none'})`,
      });
      continue;
    }
    const description = (error.schema as { description?: string }).description;
    out.push({
      path,
      message: error.message.replace(/^Expected/, 'expected'),
      fix: description
        ? `give ${description.charAt(0).toLowerCase()}${description.slice(1)}`
        : `see the schema`,
    });
  }
  return out;
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
      const withField = s.allOf.find(
        (part) => (part as { properties?: object }).properties?.[key as never],
      );
      if (withField) {
        node = (withField as unknown as { properties: Record<string, TSchema> }).properties[key];
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
  earlier: Map<string, StepKind>,
  later: Set<string>,
  declared: ReadonlySet<string>,
  env: Record<string, string | undefined> | undefined,
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
    if (env && env[field] === undefined)
      return {
        path,
        message: `"\${${reference}}": the environment variable ${field} is not set`,
        fix: `set ${field}, or write the value in the file`,
      };
    return null;
  }
  const kind = earlier.get(head);
  if (!kind) {
    const where = later.has(head)
      ? `step "${head}" comes later: a step can only name steps before it`
      : `no step has the id "${head}"`;
    return {
      path,
      message: `"\${${reference}}" names step "${head}", but ${where}`,
      fix: `${suggestion(head, [...earlier.keys()])}name an earlier step's id (${[...earlier.keys()].join(', ') || 'none has one: give the step an "id"'}), or use \${env.NAME}, \${run.id}, \${unique}`,
    };
  }
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
 */
export function validateScenario(
  input: unknown,
  env?: Record<string, string | undefined>,
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
      problems: [
        {
          path: tooDeep,
          message: `the scenario is nested more than ${MAX_DEPTH} levels deep here`,
          fix: `flatten it: a scenario's objects and lists nest at most ${MAX_DEPTH} deep`,
        },
      ],
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
      fix: 'write it without: `plugsmith logs --scenario NAME` reads a comma as "or"',
    });
  for (const field of ['description', 'plugin', '$schema']) {
    if (input[field] !== undefined && typeof input[field] !== 'string')
      problems.push({ path: field, message: `${field} must be a string`, fix: `write a string` });
  }
  const declared = declaredEnv(input.env, problems);
  const steps: Step[] = [];
  if (!Array.isArray(input.steps) || input.steps.length === 0) {
    problems.push({
      path: 'steps',
      message: 'the scenario has no steps',
      fix: `add "steps": [ { "<kind>": { … } } ] (kinds: ${STEP_KIND_NAMES.join(', ')})`,
    });
  } else {
    const ids = new Map<string, StepKind>();
    const allIds = new Set(
      input.steps
        .filter(isObject)
        .map((s) => s.id)
        .filter((id): id is string => typeof id === 'string'),
    );
    input.steps.forEach((raw, index) => {
      const at = `steps[${index}]`;
      const step = checkStep(raw, at, problems);
      if (!step) return;
      for (const { path, reference } of references(
        { [step.kind]: step.body, expect: step.expect.map((e) => ({ [e.kind]: e.body })) },
        at,
      )) {
        const problem = referenceProblem(reference, path, ids, allIds, declared, env);
        if (problem) problems.push(problem);
      }
      if (step.id !== undefined) {
        if (ids.has(step.id))
          problems.push({
            path: `${at}.id`,
            message: `two steps have the id "${step.id}"`,
            fix: 'give each step its own id',
          });
        ids.set(step.id, step.kind);
      }
      steps.push(step);
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
        fix: 'a letter or "_", then letters, digits or "_" (e.g. "API_BASE")',
      });
  });
  return declared;
}

/** How deep a scenario's objects and lists may nest (a step's payload or inputs sit at about 5). */
export const MAX_DEPTH = 64;

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

/** One step, or null after its problems were added. */
function checkStep(raw: unknown, at: string, problems: ScenarioProblem[]): Step | null {
  if (!isObject(raw)) {
    problems.push({
      path: at,
      message: 'a step is a JSON object',
      fix: `write { "<kind>": { … } } (kinds: ${STEP_KIND_NAMES.join(', ')})`,
    });
    return null;
  }
  const kinds = Object.keys(raw).filter((key) => !STEP_FIELDS.has(key));
  const before = problems.length;
  if (raw.id !== undefined && (typeof raw.id !== 'string' || !STEP_ID.test(raw.id)))
    problems.push({
      path: `${at}.id`,
      message: `the id ${JSON.stringify(raw.id)} is not a name`,
      fix: 'a letter, then letters, digits or "_" (e.g. "conv")',
    });
  if (kinds.length === 0) {
    problems.push({
      path: at,
      message: 'the step does nothing',
      fix: `give it one kind: ${STEP_KIND_NAMES.join(', ')}`,
    });
    return null;
  }
  if (kinds.length > 1) {
    const unknown = kinds.filter((k) => !(STEP_KIND_NAMES as string[]).includes(k));
    for (const key of unknown)
      problems.push({
        path: `${at}.${key}`,
        message: `"${key}" is not a step kind`,
        fix: `${suggestion(key, [...STEP_KIND_NAMES, 'id', 'expect'])}kinds: ${STEP_KIND_NAMES.join(', ')}`,
      });
    if (unknown.length === 0)
      problems.push({
        path: at,
        message: `the step has ${kinds.length} kinds (${kinds.join(', ')})`,
        fix: 'one kind per step: split it into several steps',
      });
    return null;
  }
  const kind = kinds[0];
  if (!(STEP_KIND_NAMES as string[]).includes(kind)) {
    problems.push({
      path: `${at}.${kind}`,
      message: `"${kind}" is not a step kind`,
      fix: `${suggestion(kind, STEP_KIND_NAMES)}kinds: ${STEP_KIND_NAMES.join(', ')}`,
    });
    return null;
  }
  const typed = kind as StepKind;
  const body = raw[typed];
  if (!isObject(body)) {
    problems.push({
      path: `${at}.${typed}`,
      message: `${typed} takes an object`,
      fix: `write "${typed}": { … }${typed === 'rotateSecret' ? ' ({} is enough)' : ''}`,
    });
    return null;
  }
  if (
    typed === 'trigger' &&
    typeof body.event === 'string' &&
    !(EVENT_KINDS as readonly string[]).includes(body.event)
  ) {
    problems.push({
      path: `${at}.trigger.event`,
      message: `"${body.event}" is not an event kind`,
      fix: `${suggestion(body.event, EVENT_KINDS)}one of ${EVENT_KINDS.join(', ')}`,
    });
  } else {
    problems.push(...schemaProblems(STEP_KINDS[typed].schema, body, `${at}.${typed}`));
  }
  if (typed === 'trigger')
    problems.push(...payloadProblems(String(body.event), body.payload, `${at}.trigger.payload`));
  if (typed === 'addFile' && body.content === undefined && body.path === undefined)
    problems.push({
      path: `${at}.addFile`,
      message: 'the file has neither content nor path',
      fix: 'add "content": "…" or "path": "file to upload"',
    });
  if (typed === 'request' && typeof body.path === 'string') {
    // As written (references left in); the runner checks the path again once they are expanded.
    const problem = requestPathProblem(body.path, false);
    if (problem)
      problems.push({
        path: `${at}.request.path`,
        message: problem,
        fix: 'write the path of the platform\'s API, e.g. "/api/plugins/${plug.data.id}", and the query as "query": { … }',
      });
  }
  if (typed === 'conversation' && body.character === undefined && body.agent === undefined) {
    // The agent the plugin is installed on: fine.
  }
  const expect = checkExpectations(raw.expect, `${at}.expect`, typed, problems);
  if (problems.length > before) return null;
  return {
    ...(typeof raw.id === 'string' ? { id: raw.id } : {}),
    kind: typed,
    body,
    expect,
  };
}

/** Expectations that name what a step of this kind cannot cause. */
const NEEDS_MESSAGE: ExpectationKind[] = ['reply', 'replies', 'none'];

function checkExpectations(
  raw: unknown,
  at: string,
  kind: StepKind,
  problems: ScenarioProblem[],
): Expectation[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push({
      path: at,
      message: 'expect takes a list',
      fix: 'write "expect": [ { "reply": { "text": "…" } } ]',
    });
    return [];
  }
  const out: Expectation[] = [];
  raw.forEach((item, index) => {
    const here = `${at}[${index}]`;
    if (!isObject(item) || Object.keys(item).length !== 1) {
      problems.push({
        path: here,
        message: 'an expectation is an object with one kind',
        fix: `write { "<kind>": { … } } (kinds: ${EXPECTATION_KIND_NAMES.join(', ')})`,
      });
      return;
    }
    const [name] = Object.keys(item);
    if (!(EXPECTATION_KIND_NAMES as string[]).includes(name)) {
      problems.push({
        path: `${here}.${name}`,
        message: `"${name}" is not an expectation`,
        fix: `${suggestion(name, EXPECTATION_KIND_NAMES)}kinds: ${EXPECTATION_KIND_NAMES.join(', ')}`,
      });
      return;
    }
    const typed = name as ExpectationKind;
    const body = item[typed];
    const found = schemaProblems(EXPECTATION_KINDS[typed], body, `${here}.${typed}`);
    problems.push(...found);
    if (found.length || !isObject(body)) return;
    if (NEEDS_MESSAGE.includes(typed) && kind !== 'message' && kind !== 'trigger')
      problems.push({
        path: `${here}.${typed}`,
        message: `a ${kind} step causes no reply to check`,
        fix: 'put reply, replies and none on a message step (or a trigger of AGENT_MESSAGE_RECEIVED)',
      });
    if (typed === 'reply' && typeof body.pattern === 'string') {
      const problem = linearPatternProblem(body.pattern);
      if (problem)
        problems.push({
          path: `${here}.reply.pattern`,
          message: `not a pattern RE2 can run: ${problem}`,
          fix: 'fix the pattern (RE2 syntax: no backreferences or lookaround), or give "text" instead',
        });
    }
    if (typed === 'file' && (body.written === undefined) === (body.updated === undefined))
      problems.push({
        path: `${here}.file`,
        message: 'a file expectation names either written or updated',
        fix: 'give "written": "name" or "updated": "name"',
      });
    out.push({ kind: typed, body });
  });
  return out;
}
