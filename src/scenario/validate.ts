import { EVENT_KINDS } from '#contract/enum-values';
import {
  MAX_STEPS,
  STEP_KIND_NAMES,
  STEP_KINDS,
  typedStep,
  type Scenario,
  type Step,
  type StepKind,
} from './schema.js';
import { requestPathProblem } from './steps/request.js';
import { ENV_NAME } from './references.js';
import { ALLOW_ENV_VARIABLE } from './allow-env.js';
import { isObject, suggestion, type ScenarioProblem } from './problems.js';
import {
  exampleOf,
  kindOf,
  payloadProblems,
  schemaProblems,
  type SchemaWords,
} from './schema-problems.js';
import { referenceProblem, references } from './reference-problems.js';
import { checkExpectations } from './expectation-problems.js';

// Checks a parsed scenario: its fields, each step's kind and body, its references and its expectations (the last two,
// and the schema's words, in files of their own), every problem at once.

export { MAX_PROBLEMS_SHOWN, problemText, type ScenarioProblem } from './problems.js';

/** A scenario that can run, or every problem of the file at once. */
export type Validated =
  | { ok: true; scenario: Scenario; problems: [] }
  | { ok: false; scenario: null; problems: ScenarioProblem[] };

const TOP_FIELDS = ['$schema', 'name', 'description', 'plugin', 'env', 'steps'];
const STEP_FIELDS = new Set(['id', 'expect']);
const STEP_ID = /^[A-Za-z][A-Za-z0-9_]*$/;

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
  if (allowedEnv) for (const problem of notAllowed(declared, allowedEnv)) problems.push(problem);
  const steps: Step[] = [];
  // Before the steps are checked one by one: a file of 400,000 empty steps (4 MB) took 8 s and half a GB to refuse.
  if (Array.isArray(input.steps) && input.steps.length > MAX_STEPS)
    return { ok: false, scenario: null, problems: [tooManySteps(input.steps.length)] };
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

function tooManySteps(count: number): ScenarioProblem {
  return {
    path: 'steps',
    message: `the scenario has ${count} steps: at most ${MAX_STEPS}`,
    fix: 'split it into several scenario files (each a journey of its own)',
  };
}

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
  // Each pushed, not spread into one call: a spread of many arguments overflows the stack.
  for (const problem of schemaProblems(STEP_KINDS[kind].schema, body, at, kind, (pointer) =>
    unknownEvent ? pointer === '/event' : false,
  ))
    problems.push(problem);
  if (kind === 'trigger')
    for (const problem of payloadProblems(String(body.event), body.payload, `${at}.payload`))
      problems.push(problem);
  if (kind === 'addFile' && body.content === undefined && body.path === undefined)
    problems.push({
      path: at,
      message: 'the file has neither content nor path',
      fix: 'add "content": "…" or "path": "file to upload"',
    });
  if (kind === 'request' && typeof body.path === 'string') {
    // As written (references left in); the runner checks the path again once they are expanded.
    const problem = requestPathProblem(body.path);
    if (problem)
      problems.push({
        path: `${at}.path`,
        message: problem,
        fix: 'write the path of the platform\'s API, e.g. "/api/plugins/${plug.data.id}", and the query as "query": { … }',
      });
  }
}
