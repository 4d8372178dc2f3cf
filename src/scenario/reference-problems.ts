import { STEP_KINDS, type StepKind } from './schema.js';
import { ENV_NAME, referencesIn } from './references.js';
import { isRequestResultField } from './steps/request.js';
import { isObject, suggestion, type ScenarioProblem } from './problems.js';

// A scenario's `${…}` references, checked before anything runs: each names an earlier step's result, a declared and
// allowed environment variable, the run's id or a unique value.

/** Each `${…}` in the strings of `value` (not an escaped `$${`), with the JSON path of the string. */
export function references(value: unknown, at: string): Array<{ path: string; reference: string }> {
  if (typeof value === 'string')
    return referencesIn(value).map((reference) => ({ path: at, reference }));
  if (Array.isArray(value)) return value.flatMap((item, i) => references(item, `${at}[${i}]`));
  if (isObject(value))
    return Object.entries(value).flatMap(([key, inner]) => references(inner, `${at}.${key}`));
  return [];
}

/** A reference's problem, or null when it names something that will be there. */
export function referenceProblem(
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
