import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import manifestSchema from '../../plugsmith.schema.json' with { type: 'json' };
import { UserError, EXIT } from '../errors.js';
import type { JsonSchema } from '../client/index.js';
import type { Manifest, ManifestInstall } from './types.js';
import { jsonSyntaxProblem } from './json-syntax.js';

/** plugsmith.json as plugsmith.schema.json describes it once ajv has checked it (and filled its defaults in); `$ref`s unresolved. */
interface ManifestFile {
  plugin: Omit<Manifest['plugin'], 'inputsSchema'> & { inputsSchema?: unknown };
  installs?: ManifestInstall[];
}

let validator: ValidateFunction<ManifestFile> | undefined;

/**
 * The manifest schema's validator, compiled when a manifest is first read: a process that imports this module and
 * reads none (`emulator start`, `emulator exec` without --deploy) does not pay for it (~30 ms of a start).
 */
function manifestValidator(): ValidateFunction<ManifestFile> {
  validator ??= new Ajv({
    allErrors: true,
    strict: false,
    useDefaults: true,
    // plugsmith.schema.json is this package's own file, checked against the JSON Schema meta-schema by
    // test/manifest/schema.test.ts; checking it again in every command that reads a manifest compiled
    // the meta-schema first (~20 ms of each such command's start).
    validateSchema: false,
  }).compile<ManifestFile>(manifestSchema);
  return validator;
}

/** One problem of a manifest: the path inside it (empty for the whole file) and what to do. */
interface ManifestProblem {
  path: string;
  problem: string;
}

/** A manifest's problems, every one at once: names the file, the path inside it, and the fix. */
export class ManifestError extends UserError {
  readonly problems: ManifestProblem[];
  constructor(
    readonly file: string,
    readonly path: string,
    problem: string,
    more: ManifestProblem[] = [],
    exitCode: number = EXIT.VALIDATION,
  ) {
    const problems = [{ path, problem }, ...more];
    const line = (p: ManifestProblem) => `${p.path ? `${p.path}: ` : ''}${p.problem}`;
    super(
      problems.length === 1
        ? `${file}: ${line(problems[0])}`
        : `${file} has ${problems.length} problems:\n${problems.map((p) => `  - ${line(p)}`).join('\n')}`,
      exitCode,
    );
    this.problems = problems;
  }
}

/** The schema's errors, one per problem: a oneOf failure also reports each branch's `required`, which the oneOf says better. */
function schemaProblems(errors: ErrorObject[]): ManifestProblem[] {
  const oneOfs = errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath);
  const kept = errors.filter(
    (e) =>
      e.keyword === 'oneOf' ||
      !oneOfs.some((p) => e.instancePath === p || e.instancePath.startsWith(p + '/')),
  );
  const problems = kept.map((e) => ({
    path: pathOf(e),
    problem: Object.hasOwn(EXPLAIN, e.keyword)
      ? EXPLAIN[e.keyword](e.params)
      : (e.message ?? 'is invalid'),
  }));
  // Each path and problem once, where it first came.
  return [...new Map(problems.map((p) => [`${p.path}\u0000${p.problem}`, p])).values()];
}

function pathOf(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  return parts.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), '');
}

/** What to do about a schema error, by keyword; others say what ajv says. */
const EXPLAIN: Record<string, (params: Record<string, unknown>) => string> = {
  required: () => 'is required: add it',
  additionalProperties: () =>
    'is not a manifest field: remove it or check its spelling (editors complete fields when "$schema" points at plugsmith.schema.json)',
  enum: (params) => `must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
  oneOf: () => 'needs exactly one of "repository", "agent" or "app"',
  pattern: () => 'may hold only letters, digits and _ . : - (it is used in URL paths)',
};

/**
 * The only variables a manifest may expand, each documented in docs/platform.md: the webhook server's port and address, and the
 * public host or URL a tunnel gives it. Whatever a manifest expands is sent to the platform (public fields to anyone), so never a
 * credential, nor a URL that can hold one (PLUGSMITH_S3_ENDPOINT, PLUGSMITH_LLM_BASE_URL), nor a local path (PLUGSMITH_CONFIG_DIR).
 */
export const MANIFEST_VARIABLES: readonly string[] = [
  'PORT',
  'HOST',
  'PLUGSMITH_PUBLIC_HOST',
  'PLUGSMITH_PUBLIC_URL',
];
const ALLOWED_VARIABLES = new Set(MANIFEST_VARIABLES);
const ALLOWED_LIST = MANIFEST_VARIABLES.join(', ');

/** Replaces ${VAR} and ${VAR:-default} from the environment, for the variables `expandableVariable` allows; each use goes to `used`. */
function interpolate(
  value: string,
  file: string,
  path: string,
  environment: NodeJS.ProcessEnv,
  used: Manifest['expandedVariables'],
): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}/g,
    (_m, name: string, _d, fallback: string | undefined) => {
      if (!ALLOWED_VARIABLES.has(name)) {
        throw new ManifestError(
          file,
          path,
          `uses \${${name}}, which a manifest may not read: only ${ALLOWED_LIST} are expanded (the value is sent to the platform, so never a credential, a URL that can hold one, or a local path); write the value itself, or use one of those`,
        );
      }
      // An empty variable counts as unset.
      const fromDefault = !environment[name];
      const value = environment[name] || fallback;
      if (value === undefined)
        throw new ManifestError(
          file,
          path,
          `uses \${${name}}, which is not set: set ${name} or write \${${name}:-default}`,
        );
      // `user:password@` would send a credential along with the URL.
      if (value.includes('@'))
        throw new ManifestError(
          file,
          path,
          `uses \${${name}}, whose ${fromDefault ? 'default' : 'value'} holds "@": a user name or password must not be part of a webhook URL; give the host or URL without it`,
        );
      used.push({ field: path, variable: name, fromDefault });
      return value;
    },
  );
}

/** Largest manifest or schema file read (the platform takes no larger body). */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Reads a regular file of at most MAX_FILE_BYTES as UTF-8; anything else is an error whose `code` says why (EFTYPE, EFBIG). Opened
 * without blocking and checked on the open descriptor: a FIFO or a device in a file's place cannot hang or flood the read.
 */
async function readRegularFile(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const kind = info.isFIFO()
        ? 'a FIFO'
        : info.isDirectory()
          ? 'a folder'
          : 'a device or socket';
      throw Object.assign(new Error(`${kind}, not a regular file`), { code: 'EFTYPE' });
    }
    if (info.size > MAX_FILE_BYTES)
      throw Object.assign(new Error(`larger than ${MAX_FILE_BYTES} bytes`), { code: 'EFBIG' });
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Whether `path` is `folder` or inside it (both absolute and resolved). */
function inside(folder: string, path: string): boolean {
  const r = relative(folder, path);
  return r === '' || (!isAbsolute(r) && r !== '..' && !r.startsWith(`..${sep}`));
}

async function resolveSchema(
  s: JsonSchema,
  base: string,
  file: string,
  path: string,
  read: Set<string>,
): Promise<JsonSchema> {
  const ref = s.$ref;
  // Only a schema that is nothing but a relative file reference is read; other $refs belong to the schema.
  if (
    typeof ref !== 'string' ||
    Object.keys(s).length !== 1 ||
    ref.startsWith('#') ||
    /^[a-z]+:/i.test(ref)
  )
    return s;
  const at = `${path}.$ref`;
  // What a $ref reads is sent to the platform (as with variables), so only JSON files of the project itself.
  if (isAbsolute(ref) || /^[\\/]/.test(ref))
    throw new ManifestError(
      file,
      at,
      `"${ref}" is an absolute path: a schema file must be inside the project, named relative to the manifest (e.g. "./schemas/inputs.json")`,
    );
  if (!/\.json$/i.test(ref))
    throw new ManifestError(
      file,
      at,
      `"${ref}" is not a .json file: a $ref names a JSON Schema file (.json) inside the project`,
    );
  const target = resolve(base, ref);
  const cannotRead = (error: NodeJS.ErrnoException): never => {
    const why =
      error.code === 'EFTYPE' || error.code === 'EFBIG'
        ? `${error.message}: a $ref names a JSON Schema file`
        : `${error.code}: fix the path, relative to the manifest`;
    throw new ManifestError(file, at, `cannot read ${ref} (${why})`);
  };
  const [project, real] = await Promise.all([realpath(base), realpath(target)]).catch(cannotRead);
  if (!inside(project, real)) {
    throw new ManifestError(
      file,
      at,
      `"${ref}" is outside the project folder${real !== target ? ` (a link to ${real})` : ''}: a schema file must be inside the manifest's folder; copy the schema into the project`,
    );
  }
  if (!/\.json$/i.test(real))
    throw new ManifestError(
      file,
      at,
      `"${ref}" links to ${real}, which is not a .json file: a $ref names a JSON Schema file (.json)`,
    );
  // Hidden folders and packages hold no schema of the project's own, but secrets (`.plugsmith/`) and others' files.
  const hidden = relative(project, real)
    .split(sep)
    .find((segment) => segment.startsWith('.') || segment === 'node_modules');
  if (hidden !== undefined)
    throw new ManifestError(
      file,
      at,
      `"${ref}" is inside ${hidden}/, which holds no schema of the project's own (local state, secrets, packages): keep schema files in a folder such as ./schemas`,
    );
  read.add(target);
  const text = await readRegularFile(real).catch(cannotRead);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not a JSON object');
    return parsed as JsonSchema;
  } catch (error) {
    throw new ManifestError(
      file,
      at,
      `${ref} is not a JSON Schema object (${(error as Error).message})`,
    );
  }
}

/** Reads, validates and resolves a manifest. Errors name the file, the path and the fix. */
export async function loadManifest(
  path: string,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<Manifest> {
  const file = relative(process.cwd(), path) || path;
  const text = await readRegularFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      throw new ManifestError(
        file,
        '',
        'not found: run `plugsmith init` to create a plugin project, or pass --manifest PATH',
        [],
        EXIT.NOT_FOUND,
      );
    }
    throw new ManifestError(file, '', `cannot be read (${error.message})`);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const where = jsonSyntaxProblem(text);
    if (where)
      throw new ManifestError(
        file,
        '',
        `is not valid JSON: line ${where.line}, column ${where.column}: ${where.message}`,
      );
    throw new ManifestError(file, '', `is not valid JSON (${(error as Error).message})`);
  }
  const raw = parsed;
  // The schema's problems, then the checks it cannot make, on whatever parts are well-formed: one run names every problem.
  const validate = manifestValidator();
  const valid = validate(raw);
  const problems: ManifestProblem[] = valid ? [] : schemaProblems(validate.errors!);
  const schemaPaths = problems.map((p) => p.path);
  // A later check adds nothing where the schema already found the value (or its parent) wrong.
  const reported = (at: string) =>
    schemaPaths.some((p) => p === at || at.startsWith(p + '.') || at.startsWith(p + '['));
  const record = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  const m = record(raw);
  const dev = record(m.dev);
  const base = dirname(path);
  /** A list of the manifest, each repeated name a problem. */
  const listOf = (key: 'actions' | 'externalEvents' | 'installs'): Record<string, unknown>[] => {
    const list = Array.isArray(m[key]) ? m[key].map(record) : [];
    const names = new Set<string>();
    list.forEach((x, i) => {
      if (typeof x.name !== 'string') return;
      if (names.has(x.name) && !reported(`${key}[${i}].name`))
        problems.push({
          path: `${key}[${i}].name`,
          problem: `duplicate name "${x.name}": names must be unique`,
        });
      names.add(x.name);
    });
    return list;
  };
  const attempt = async <T>(work: () => Promise<T> | T): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      problems.push(...error.problems.filter((p) => !reported(p.path)));
    }
  };
  const actions = listOf('actions');
  const externalEvents = listOf('externalEvents');
  listOf('installs'); // for its repeated names

  const given = record(m.plugin);
  const expanded: Manifest['expandedVariables'] = [];
  let webhookUrl = typeof given.webhookUrl === 'string' ? given.webhookUrl : undefined;
  if (webhookUrl !== undefined && !reported('plugin.webhookUrl')) {
    const declared = webhookUrl;
    await attempt(() => {
      const url = interpolate(declared, file, 'plugin.webhookUrl', environment, expanded);
      webhookUrl = url;
      if (!/^https?:\/\/[^\s]+$/.test(url)) {
        throw new ManifestError(file, 'plugin.webhookUrl', `"${url}" is not an http(s) URL`);
      }
    });
  }
  const schemaFiles = new Set<string>();
  // Only an object can be (or hold) a schema; anything else the schema check reported already.
  const schema = (value: unknown, at: string) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && !reported(at)
      ? attempt(() => resolveSchema(value as JsonSchema, base, file, at, schemaFiles))
      : Promise.resolve(undefined);
  const inputsSchema = (await schema(given.inputsSchema, 'plugin.inputsSchema')) ?? {};
  const described = (d: Record<string, unknown>) => ({
    name: d.name as string,
    title: (d.title as string | undefined) ?? '',
    description: (d.description as string | undefined) ?? '',
  });
  const resolvedActions = await Promise.all(
    actions.map(async (a, i) => ({
      ...described(a),
      argsSchema: await schema(a.argsSchema, `actions[${i}].argsSchema`),
      returnSchema: await schema(a.returnSchema, `actions[${i}].returnSchema`),
    })),
  );
  const resolvedExternalEvents = await Promise.all(
    externalEvents.map(async (e, i) => ({
      ...described(e),
      payloadSchema: await schema(e.payloadSchema, `externalEvents[${i}].payloadSchema`),
    })),
  );
  // With nothing reported the schema held: `raw` is a ManifestFile.
  if (!valid || problems.length > 0) {
    const [first, ...rest] =
      problems.length > 0
        ? problems
        : [{ path: '', problem: 'does not match plugsmith.schema.json' }];
    throw new ManifestError(file, first.path, first.problem, rest);
  }
  return {
    path: resolve(path),
    plugin: { ...raw.plugin, inputsSchema, ...(webhookUrl !== undefined ? { webhookUrl } : {}) },
    actions: resolvedActions,
    externalEvents: resolvedExternalEvents,
    installs: raw.installs ?? [],
    ...(typeof dev.command === 'string'
      ? {
          dev: {
            command: dev.command,
            watch: Array.isArray(dev.watch)
              ? dev.watch.filter((w): w is string => typeof w === 'string')
              : [],
          },
        }
      : {}),
    schemaFiles: [...schemaFiles],
    expandedVariables: expanded,
  };
}
