// Which environment variables a run passes to scenarios. A scenario file names the variables it
// expands (`"env": ["NAME"]`), but the file may come from anyone (a cloned project, a pull request),
// and its steps send a value wherever they say: a plugin's webhook URL on any host, an install's inputs.
// So the person running it names what may be passed, outside the project: `--allow-env NAME` or
// PLUGSMITH_SCENARIO_ENV in their shell or CI job (the MCP server reads only the latter, from the
// environment its client started it with). A declared name nobody allowed stops the run before anything is sent.

/** The variable that lists the names a run passes (comma-separated), beside `--allow-env`. */
export const ALLOW_ENV_VARIABLE = 'PLUGSMITH_SCENARIO_ENV';

/** The names in comma-separated lists (blanks and empty items dropped). */
function namesIn(lists: ReadonlyArray<string | undefined>): Set<string> {
  const names = new Set<string>();
  for (const list of lists)
    for (const name of (list ?? '').split(',')) if (name.trim() !== '') names.add(name.trim());
  return names;
}

/** The names a run passes: those of `--allow-env` (each a comma-separated list) and of PLUGSMITH_SCENARIO_ENV. */
export function allowedEnvNames(
  flags: ReadonlyArray<string>,
  environment: Record<string, string | undefined>,
): Set<string> {
  return namesIn([...flags, environment[ALLOW_ENV_VARIABLE]]);
}

/** `environment` with only the `allowed` names: what the runner may expand. */
export function passedEnv(
  environment: Record<string, string | undefined>,
  allowed: ReadonlySet<string>,
): Record<string, string | undefined> {
  const passed: Record<string, string | undefined> = {};
  for (const name of allowed) if (environment[name] !== undefined) passed[name] = environment[name];
  return passed;
}
