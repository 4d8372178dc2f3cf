import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { expect } from 'vitest';
import { runCli } from './cli-process.js';
import { tempDir } from './index.js';

// A project as `plugsmith init` writes it, runnable without `npm install`: its `plugsmith`
// dependency is this checkout, `standardwebhooks` and the types come from this checkout's
// node_modules, and the TypeScript is transpiled to dist/ file by file with this checkout's
// TypeScript (`transpileModule`: the same JavaScript `tsc -p tsconfig.build.json` emits). The
// manifest's dev command serves the compiled plugin (`node dist/main.js`); the template's own code is
// untouched. Types are not checked here: a tsc process took some 4 s of CPU per project (the
// program, plugsmith's types included), for some 20 projects a run; test/templates/templates.test.ts
// checks them, by each project's own `npm test` and `npm run build`.

const ROOT = resolve(import.meta.dirname, '../..');

/** A language `plugsmith init` writes a project in. */
export type Language = 'typescript' | 'python';

/** Both languages, named for a test's title: `describe.each(LANGUAGES)('a generated $language project', …)`. */
export const LANGUAGES = [
  { language: 'TypeScript', code: 'typescript' },
  { language: 'Python', code: 'python' },
] as const satisfies ReadonlyArray<{ language: string; code: Language }>;

/** A generated project in a temporary folder of its own (removed by the kit), and the CLI's environment for it. */
export interface ScenarioProject {
  /** The temporary folder: the project (`plugin/`), the CLI's config (`config/`), and whatever else a test writes. */
  work: string;
  /** The project's folder. */
  dir: string;
  /** A config dir of its own, and none of the machine's platform credentials (`--start` and `dev` start their emulator). */
  env: Record<string, string>;
}

/**
 * A project as `plugsmith init` writes it (an EVENT_HANDLER unless `type` says otherwise), ready for
 * `plugsmith scenario run --start` and `plugsmith dev`: `replyThrows` makes its reply throw on
 * "boom" (makeReplyThrow), and `scenarios` writes more files into its `scenarios/` (name: content).
 */
export async function scenarioProject(
  language: Language,
  options: {
    type?: 'EVENT_HANDLER' | 'DATA_PROVIDER' | 'APP';
    replyThrows?: boolean;
    scenarios?: Record<string, unknown>;
    prefix?: string;
  } = {},
): Promise<ScenarioProject> {
  const work = await tempDir(options.prefix ?? 'plugsmith-project-');
  const env = {
    PLUGSMITH_CONFIG_DIR: join(work, 'config'),
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
  };
  const dir = join(work, 'plugin');
  const make = language === 'typescript' ? typescriptProject : pythonProject;
  await make(dir, options.type ?? 'EVENT_HANDLER', env);
  if (options.replyThrows) await makeReplyThrow(dir, language);
  for (const [name, scenario] of Object.entries(options.scenarios ?? {}))
    await writeFile(join(dir, 'scenarios', name), JSON.stringify(scenario, null, 2));
  return { work, dir, env };
}

/** Writes a TypeScript project of the type in `dir` and compiles it. */
export async function typescriptProject(
  dir: string,
  type: 'EVENT_HANDLER' | 'DATA_PROVIDER' | 'APP',
  env: Record<string, string>,
): Promise<void> {
  const init = await runCli(['init', dir, '--type', type, '--yes'], { env });
  expect(init.code, init.stderr).toBe(0);
  await mkdir(join(dir, 'node_modules/@types'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules/plugsmith'), 'dir');
  await symlink(
    join(ROOT, 'node_modules/standardwebhooks'),
    join(dir, 'node_modules/standardwebhooks'),
    'dir',
  );
  await symlink(
    join(ROOT, 'node_modules/@types/node'),
    join(dir, 'node_modules/@types/node'),
    'dir',
  );
  await transpile(join(dir, 'src'), join(dir, 'dist'));
  await setDevCommand(dir, 'node dist/main.js', ['*.ts']);
}

/** Writes the JavaScript of every `.ts` file under `src` into `out`, as the templates' tsconfig.build.json has tsc emit it. */
async function transpile(src: string, out: string): Promise<void> {
  // A declaration file (`.d.ts`) emits nothing.
  const files = (await readdir(src, { recursive: true })).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.d.ts'),
  );
  for (const file of files) {
    const { outputText } = ts.transpileModule(await readFile(join(src, file), 'utf8'), {
      fileName: file,
      // The template's target; its sources are ES modules (package.json "type": "module").
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
    });
    const target = join(out, file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
}

/** Writes a Python project of the type in `dir`. */
export async function pythonProject(
  dir: string,
  type: 'EVENT_HANDLER' | 'DATA_PROVIDER' | 'APP',
  env: Record<string, string>,
): Promise<void> {
  const init = await runCli(['init', dir, '--type', type, '--lang', 'python', '--yes'], { env });
  expect(init.code, init.stderr).toBe(0);
}

/** Sets the manifest's dev command (and the files whose change restarts the plugin). */
export async function setDevCommand(dir: string, command: string, watch?: string[]): Promise<void> {
  const path = join(dir, 'plugsmith.json');
  const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  manifest.dev = { command, ...(watch ? { watch } : {}) };
  await writeFile(path, JSON.stringify(manifest, null, 2));
}

/**
 * Makes a generated EVENT_HANDLER project's reply throw on a message holding "boom" (`cannot reply to "…"`), so that the plugin
 * answers that message's delivery 500 and writes the error and its stack: the TypeScript project's compiled reply
 * (what `node dist/main.js` runs), or the Python project's `plugin/reply.py`.
 */
export async function makeReplyThrow(dir: string, language: Language): Promise<void> {
  const [file, from, to] =
    language === 'typescript'
      ? [
          'dist/reply.js',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text, not a template here
          'return `You said: ${text}`;',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text, not a template here
          "if (text.includes('boom')) throw new Error(`cannot reply to ${JSON.stringify(text)}`);\n    return `You said: ${text}`;",
        ]
      : [
          'plugin/reply.py',
          '    return f"You said: {text}"',
          '    if "boom" in text:\n        raise ValueError(f"cannot reply to {text!r}")\n    return f"You said: {text}"',
        ];
  const path = join(dir, file);
  const source = await readFile(path, 'utf8');
  const changed = source.replace(from, to);
  expect(changed).not.toBe(source);
  await writeFile(path, changed);
}
