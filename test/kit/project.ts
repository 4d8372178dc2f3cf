import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { runCli } from './cli-process.js';
import { tempDir } from './index.js';

// A project as `plugsmith init` writes it, runnable without `npm install`: its `plugsmith`
// dependency is this checkout, `standardwebhooks` and the types come from this checkout's
// node_modules, and the TypeScript is compiled with this checkout's tsc. The manifest's dev command
// serves the compiled plugin (`node dist/main.js`); the template's own code is untouched.

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
  const tsc = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  tsc.stdout.on('data', (d) => (output += d));
  tsc.stderr.on('data', (d) => (output += d));
  const [code] = (await once(tsc, 'close')) as [number | null];
  expect(code, output).toBe(0);
  await setDevCommand(dir, 'node dist/main.js', ['*.ts']);
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
