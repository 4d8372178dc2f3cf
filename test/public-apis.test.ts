import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

// Public APIs only (issue 34): no V8 flag set at run time, and no file of another package that the
// package does not offer. A private file or a flag turns every upgrade into a research project. The
// tests are held to it too: they share their worker processes (vitest.config.ts), so a flag one file
// set would hold for every later file; a test that needs one runs a child process with it.

const root = resolve(import.meta.dirname, '..');

/** Deep paths a package without an exports map documents as its API. */
const DOCUMENTED_DEEP_PATHS = new Map([
  // https://ajv.js.org/json-schema.html#draft-2020-12: `import Ajv2020 from "ajv/dist/2020"`.
  ['ajv/dist/2020.js', "ajv's entry for JSON Schema draft 2020-12"],
  // https://github.com/dequelabs/axe-core#getting-started: the file to inject in a page, listed in its `files`.
  ['axe-core/axe.min.js', "axe-core's script for a browser page"],
]);

/** The project's own code: what ships, what builds it, and its tests. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const files = [
  ...sources(join(root, 'src')),
  ...sources(join(root, 'emulator')),
  ...sources(join(root, 'bin')),
  // The tests, but this file: its examples name private files on purpose.
  ...sources(join(root, 'test')).filter((file) => file !== import.meta.filename),
  join(root, 'tsup.config.ts'),
  join(root, 'vitest.config.ts'),
  join(root, 'vitest.quick.config.ts'),
];

/** A call of the require function createRequire makes, made at once: `createRequire(import.meta.url)('…')`. */
const CREATED_REQUIRE_CALL = /\bcreateRequire\s*\((?:[^()]|\([^()]*\))*\)\s*\(\s*['"]([^'"]+)['"]/g;

/** The names a module gives the require functions it makes: `const load = createRequire(import.meta.url)`. */
function requireFunctionNames(text: string): string[] {
  const bound = /\b(?:const|let|var)\s+([\w$]+)\s*=\s*createRequire\s*\(/g;
  return [...text.matchAll(bound)].map((match) => match[1]!);
}

/** Every module specifier a file imports, requires (with `require`, a require function it made, or one made and called at once) or resolves, and every string naming a package's script file. */
function specifiers(text: string): string[] {
  const loaded =
    /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\.resolve\s*\(\s*)['"]([^'"]+)['"]/g;
  const required = requireFunctionNames(text).flatMap((name) => [
    ...text.matchAll(
      new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}\\s*\\(\\s*['"]([^'"]+)['"]`, 'g'),
    ),
  ]);
  const scriptFiles = /['"]((?:@[\w.-]+\/)?[\w.-]+\/[\w./-]+\.[cm]?js)['"]/g;
  const named = [...text.matchAll(scriptFiles)]
    .map((match) => match[1]!)
    .filter((specifier) => existsSync(join(root, 'node_modules', splitSpecifier(specifier)[0])));
  const calls = [...text.matchAll(loaded), ...text.matchAll(CREATED_REQUIRE_CALL), ...required];
  // A specifier holds no white space: a match across lines is a string that only looks like one.
  return [...new Set([...calls.map((match) => match[1]!), ...named])].filter(
    (specifier) => !/\s/.test(specifier),
  );
}

/** `['@scope/name', 'sub/path']` of a package specifier. */
function splitSpecifier(specifier: string): [string, string] {
  const parts = specifier.split('/');
  const size = specifier.startsWith('@') ? 2 : 1;
  return [parts.slice(0, size).join('/'), parts.slice(size).join('/')];
}

const self = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string };

/** Whether `pkg` offers `subpath` (`''` is the package itself); this package (tests import it by name) offers its own exports. */
function offers(pkg: string, subpath: string): boolean {
  if (subpath === '') return true;
  const folder = pkg === self.name ? root : join(root, 'node_modules', pkg);
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
    exports?: unknown;
  };
  const exports = manifest.exports;
  if (exports === undefined || typeof exports === 'string' || Array.isArray(exports))
    return DOCUMENTED_DEEP_PATHS.has(`${pkg}/${subpath}`);
  const keys = Object.keys(exports as object).filter((key) => key.startsWith('./'));
  return keys.some((key) => {
    if (!key.includes('*')) return key === `./${subpath}`;
    const [before, after] = key.split('*');
    return `./${subpath}`.startsWith(before!) && `./${subpath}`.endsWith(after!);
  });
}

/** Files whose createRequire only reads the require cache (the same for every require), loading nothing. */
const READS_THE_REQUIRE_CACHE = new Set([
  // The spawned CLI's load recorder lists the CommonJS files required, from a data: module (no file URL of its own).
  'test/kit/cli-process.ts',
]);

describe('public APIs only', () => {
  test('nothing sets a V8 flag at run time', () => {
    // Built from parts, so that this file's own text does not match; a test may name the module (to
    // check that a process never loaded it) without importing it.
    const flags = new RegExp(
      ['setFlags', 'FromString', `|(from|import\\s*\\(|require\\s*\\()\\s*['"](node:)?v8['"]`].join(
        '',
      ),
    );
    const setting = files
      .filter((file) => flags.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(setting).toEqual([]);
  });

  test('the test workers start with no Node flag: a flag there would hold for every file of the run', () => {
    // Where a worker-wide flag would go: the vitest configurations (a pool's `execArgv`, or NODE_OPTIONS
    // in the workers' env) and the scripts that start the run.
    const configs = ['vitest.config.ts', 'vitest.quick.config.ts'].map((name) => ({
      name,
      text: readFileSync(join(root, name), 'utf8'),
    }));
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    const workerFlag =
      /execArgv|NODE_OPTIONS|--expose[-_]gc|--(?:no-)?(?:allow|experimental|harmony)\b|--(?:import|loader|require|conditions|inspect)\b|--max-old-space-size/;
    expect(configs.filter(({ text }) => workerFlag.test(text)).map(({ name }) => name)).toEqual([]);
    expect(
      Object.entries(scripts)
        .filter(([name, line]) => name.startsWith('test') && workerFlag.test(line))
        .map(([name]) => name),
    ).toEqual([]);
    // The check reads what it should: a config naming a worker flag would fail it.
    expect(workerFlag.test("poolOptions: { forks: { execArgv: ['--expose-gc'] } }")).toBe(true);
  });

  test('nothing imports, requires or resolves a file another package does not offer', () => {
    const privateFiles = files.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        // Relative paths, Node's own modules and this package's own `#` subpath imports (package.json imports).
        .filter((specifier) => !/^(\.|\/|node:|#)/.test(specifier))
        .filter((specifier) => {
          const [pkg, subpath] = splitSpecifier(specifier);
          return !offers(pkg, subpath);
        })
        .map((specifier) => `${relative(root, file)}: ${specifier}`),
    );
    expect(privateFiles).toEqual([]);
  });

  test("no module loads a package from another package's folder", () => {
    const reaching = files
      .filter((file) => !READS_THE_REQUIRE_CACHE.has(relative(root, file)))
      .filter((file) =>
        /createRequire\((?!\s*import\.meta\.url\s*\))/.test(readFileSync(file, 'utf8')),
      )
      .map((file) => relative(root, file));
    expect(reaching).toEqual([]);
  });

  test('the checks see deep paths: they would catch the undici files once required by path', () => {
    expect(specifiers("{ request: 'undici/lib/api/api-request.js' }")).toEqual([
      'undici/lib/api/api-request.js',
    ]);
    expect(specifiers("import { x } from 'lowdb/node';")).toEqual(['lowdb/node']);
    expect(specifiers("const out = 'dist/cli.js';")).toEqual([]);
    // A package's file without its extension, through a require function of the module's own.
    expect(specifiers("const x = require('ajv-formats/dist/formats');")).toEqual([
      'ajv-formats/dist/formats',
    ]);
    expect(
      specifiers(
        "const { fullFormats } = createRequire(import.meta.url)('ajv-formats/dist/formats');",
      ),
    ).toEqual(['ajv-formats/dist/formats']);
    expect(
      specifiers(
        "const load = createRequire(pathToFileURL(here));\nconst { fullFormats } = load('ajv-formats/dist/formats');",
      ),
    ).toEqual(['ajv-formats/dist/formats']);
    expect(specifiers("createRequire(import.meta.url).resolve('undici/lib/core/util')")).toEqual([
      'undici/lib/core/util',
    ]);
    expect(
      specifiers(
        "const load = createRequire(import.meta.url);\nconst again = () => reload('ajv-formats/dist/formats');",
      ),
    ).toEqual([]);
    expect(offers('undici', 'lib/api/api-request.js')).toBe(false);
    expect(offers('lowdb', 'node')).toBe(true);
    expect(offers('ajv', 'dist/2020.js')).toBe(true);
    expect(offers('ajv-formats', 'dist/formats.js')).toBe(false);
    expect(offers('ajv-formats', 'dist/formats')).toBe(false);
  });
});
