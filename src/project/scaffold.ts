import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refusedPath, UserError, EXIT } from '../errors.js';
import { plugsmithDependency } from './dependency.js';
import { SCOPES, type PluginType } from '#contract';
import { PLUGIN_EVENTS, TEMPLATES } from './plugin-types.js';
import { outputPath, renderTemplate } from './render.js';
import { writeProjectFile } from '../shared/project-file.js';
import { LANGUAGES, type Language } from './languages.js';

/** What a generated project is made of: the wizard's answers, or the flags. */
export interface ProjectAnswers {
  name: string;
  /** Default: typescript. */
  lang?: Language;
  type: PluginType;
  events: string[];
  scopes: string[];
  port: number;
}

/** What was written: files relative to `dir`, sorted; the project's `devDependencies.plugsmith`, and the vendored plugsmith if any. */
interface ScaffoldResult {
  dir: string;
  files: string[];
  plugsmithVersion: string;
  plugsmithDependency: string;
  vendored: string | null;
}

/** The default port of a generated plugin's webhook server. */
export const DEFAULT_PORT = 3000;

/** The plugsmith package folder (holding templates/), from the source tree or the built dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && existsSync(join(dir, 'templates'))) {
      if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'plugsmith')
        return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(
        'cannot find the plugsmith package (with its templates/ folder) above ' +
          fileURLToPath(import.meta.url),
      );
    dir = parent;
  }
}

/** The version of the running plugsmith, which generated projects depend on. */
export function plugsmithVersion(): string {
  return (
    JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
}

/** Checks a project name: it becomes the npm package name and the plugin's name. */
export function checkName(name: string): true | string {
  if (name.length === 0 || name.length > 100) return 'must have 1 to 100 characters';
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name))
    return 'may hold only lowercase letters, digits and - . _ and must start with a letter or digit (it is the npm package name)';
  return true;
}

/** A valid project name made from a folder name (`My Plugin` → `my-plugin`). */
export function nameFromDir(dir: string): string {
  const base = resolve(dir).split(/[\\/]/).pop() ?? '';
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 100);
  return name || 'my-plugin';
}

/** Checks the answers (usage errors name the flag) and adds the events and scopes the template's code needs, listed in `added`. */
export function completeAnswers(answers: ProjectAnswers): {
  answers: ProjectAnswers;
  added: string[];
} {
  const nameProblem = checkName(answers.name);
  if (nameProblem !== true)
    throw new UserError(`--name "${answers.name}" ${nameProblem}`, EXIT.USAGE);
  const template = TEMPLATES[answers.type];
  if (!template)
    throw new UserError(
      `--type must be one of ${Object.keys(TEMPLATES).join(', ')}, not "${answers.type}"`,
      EXIT.USAGE,
    );
  const unknownEvent = answers.events.find(
    (e) => !(PLUGIN_EVENTS as readonly string[]).includes(e),
  );
  if (unknownEvent !== undefined)
    throw new UserError(
      `--events: "${unknownEvent}" is not an event a plugin can receive; choose from ${PLUGIN_EVENTS.join(', ')}`,
      EXIT.USAGE,
    );
  const unknownScope = answers.scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknownScope !== undefined)
    throw new UserError(
      `--scopes: "${unknownScope}" is not a scope; choose from ${SCOPES.join(', ')}`,
      EXIT.USAGE,
    );
  if (answers.lang !== undefined && !(LANGUAGES as readonly string[]).includes(answers.lang))
    throw new UserError(
      `--lang must be one of ${LANGUAGES.join(', ')}, not "${answers.lang}"`,
      EXIT.USAGE,
    );
  if (!Number.isInteger(answers.port) || answers.port < 1 || answers.port > 65535)
    throw new UserError(
      `--port must be a whole number from 1 to 65535, not "${answers.port}"`,
      EXIT.USAGE,
    );

  const added = [
    ...template.requiredEvents.filter((e) => !answers.events.includes(e)),
    ...template.requiredScopes.filter((s) => !answers.scopes.includes(s)),
  ];
  // Canonical order, no duplicates: the manifest reads the same whatever order they were typed in.
  const events = PLUGIN_EVENTS.filter(
    (e) => answers.events.includes(e) || template.requiredEvents.includes(e),
  );
  const scopes = SCOPES.filter(
    (s) => answers.scopes.includes(s) || template.requiredScopes.includes(s),
  );
  return { answers: { ...answers, events, scopes }, added };
}

/** Refuses a non-empty folder (a `.git` folder alone counts as empty) unless forced, before anything is asked or written. */
export async function checkTarget(dir: string, force: boolean | undefined): Promise<void> {
  if (force) return;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR')
      throw new UserError(`${dir} is a file: choose a folder for the project`, EXIT.USAGE);
    throw error;
  }
  if (entries.every((e) => e === '.git')) return;
  const shown = relative(process.cwd(), dir) || '.';
  throw new UserError(
    `${shown} is not empty: choose a new or empty folder, or pass --force to write the template into it (its files are overwritten)`,
    EXIT.USAGE,
  );
}

/** A JSON array on one line, spaced as people write it. */
function jsonList(values: string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
}

async function templateFiles(root: string, sub = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, sub), { withFileTypes: true })) {
    const path = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await templateFiles(root, path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The README of a Python project on getting plugsmith: one command that works on a clone today, and what changes once it is published. */
function pythonInstall(dependency: { version: string; vendored: string | null }): string {
  if (!dependency.vendored)
    return [
      'One command installs it, here or on a clone of this project:',
      '',
      '```sh',
      `npm install --global plugsmith@${dependency.version}`,
      '```',
      '',
      `(or prefix each command with \`npx plugsmith@${dependency.version}\`).`,
    ].join('\n');
  const tarball = `./${dependency.vendored}`;
  return [
    `\`${dependency.vendored}\` is the plugsmith that wrote this project (${dependency.version}, not a release the npm`,
    'registry serves): commit it. One command installs it, here or on a clone of this project:',
    '',
    '```sh',
    `npm install --global ${tarball}`,
    '```',
    '',
    "(its dependencies come from the npm registry). Without write access to npm's global folder, set",
    'a prefix of your own first (`npm config set prefix ~/.local`, with `~/.local/bin` on your PATH),',
    `or run each command as \`npx --yes --package ${tarball} plugsmith …\`. Once plugsmith is`,
    'published, `npm install --global plugsmith@latest` replaces it; then delete `vendor/`.',
  ].join('\n');
}

/** A TypeScript template's file names in README text, as the Python template names them (`src/reply.ts` is `plugin/reply.py`). */
function pythonPaths(text: string): string {
  return text.replace(
    /`src\/([\w-]+)\.ts`/g,
    (_match, name: string) => `\`plugin/${name.replaceAll('-', '_')}.py\``,
  );
}

/** The MCP server an agent starts in the project: the project's own plugsmith (a devDependency) for TypeScript, the installed one for Python. */
function mcpServer(python: boolean): { command: string; args: string[] } {
  // `--no`: never fetch a plugsmith from the registry when the project's is not installed (npx then says so).
  return python
    ? { command: 'plugsmith', args: ['mcp'] }
    : { command: 'npx', args: ['--no', 'plugsmith', 'mcp'] };
}

/** The project MCP configurations coding agents read, by path: Claude Code, VS Code (`servers`), Cursor (`mcpServers`). */
export function mcpConfigurations(python: boolean): Record<string, string> {
  const server = mcpServer(python);
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    '.mcp.json': json({ mcpServers: { plugsmith: { type: 'stdio', ...server } } }),
    '.vscode/mcp.json': json({ servers: { plugsmith: { type: 'stdio', ...server } } }),
    '.cursor/mcp.json': json({ mcpServers: { plugsmith: server } }),
  };
}

/** The JSON Schemas a Python project's `$schema` names (it has no node_modules/plugsmith): copies of this plugsmith's. */
const PYTHON_SCHEMAS = ['plugsmith.schema.json', 'scenario.schema.json'];

/**
 * Writes one file of the project: `init --force` writes into a folder that may be a stranger's clone, so a folder that
 * links out of the project is refused and a link at the file's name is replaced, never followed.
 */
async function writeInside(dir: string, target: string, data: string | Uint8Array): Promise<void> {
  await writeProjectFile(dir, target, data, { label: "init's file" }).catch(refusedPath);
}

/** Writes a plugin project: `templates/common/`, then `templates/<type>/` (whose files win), placeholders filled. */
export async function scaffoldProject(
  options: ProjectAnswers & { dir: string; force?: boolean },
): Promise<ScaffoldResult> {
  const dir = resolve(options.dir);
  await checkTarget(dir, options.force);
  const { answers } = completeAnswers(options);
  const template = TEMPLATES[answers.type];
  const python = answers.lang === 'python';
  await mkdir(dir, { recursive: true });
  // First, so that a project whose plugsmith cannot be packed is not left looking complete.
  // A Python project has no package.json, but a clone of it needs a plugsmith all the same: vendored alike.
  const dependency = await plugsmithDependency(packageRoot(), plugsmithVersion(), dir);
  const values = {
    name: answers.name,
    description: template.description,
    type: answers.type,
    port: String(answers.port),
    plugsmithVersion: dependency.version,
    plugsmithDependency: dependency.spec,
    vendorNote: dependency.vendored
      ? `\n- \`${dependency.vendored}\` is the plugsmith that wrote this project (${dependency.version}, not a release the npm\n  registry serves), which \`package.json\` installs: commit it, so that a clone installs too. Once\n  plugsmith is published, \`npm install plugsmith@latest\` replaces it (then delete \`vendor/\`).`
      : '',
    events: jsonList(answers.events),
    scopes: jsonList(answers.scopes),
    pythonInstall: pythonInstall(dependency),
    // The CI job's install of plugsmith: the vendored tarball, else the release.
    plugsmithGlobalInstall: dependency.vendored
      ? `npm install --global ./${dependency.vendored}`
      : `npm install --global plugsmith@${dependency.version}`,
    behaviour: python ? pythonPaths(template.behaviour) : template.behaviour,
    installHint: python
      ? template.installHint.replaceAll('npx plugsmith', 'plugsmith')
      : template.installHint,
    triggerEvent: template.triggerEvent,
    installs: template.installs
      .map(
        (install) =>
          `{ ${Object.entries(install)
            .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
            .join(', ')} }`,
      )
      .join(',\n    '),
  };

  const templates = join(packageRoot(), 'templates');
  const sources = new Map<string, string>();
  for (const layer of python
    ? ['python/common', `python/${answers.type}`]
    : ['common', answers.type]) {
    for (const file of await templateFiles(join(templates, layer)))
      sources.set(outputPath(file), join(templates, layer, file));
  }
  for (const [target, source] of sources) {
    const text = renderTemplate(
      await readFile(source, 'utf8'),
      values,
      relative(templates, source),
    );
    if (options.force && (await stat(join(dir, target)).catch(() => null))?.isDirectory()) {
      throw new UserError(
        `${target} is a folder in ${dir}: remove it, then run init again`,
        EXIT.USAGE,
      );
    }
    await writeInside(dir, target, text);
  }
  const generated: string[] = [];
  for (const [target, text] of Object.entries(mcpConfigurations(python))) {
    await writeInside(dir, target, text);
    generated.push(target);
  }
  if (python) {
    for (const schema of PYTHON_SCHEMAS) {
      await writeInside(dir, `schemas/${schema}`, await readFile(join(packageRoot(), schema)));
      generated.push(`schemas/${schema}`);
    }
  }
  const files = [
    ...sources.keys(),
    ...generated,
    ...(dependency.vendored ? [dependency.vendored] : []),
  ].sort();
  return {
    dir,
    files,
    plugsmithVersion: dependency.version,
    plugsmithDependency: dependency.spec,
    vendored: dependency.vendored,
  };
}
