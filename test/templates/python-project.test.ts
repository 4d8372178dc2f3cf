import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';
import { pythonProject } from '../kit/project.js';

// The Python project as editors, Python tools and unittest meet it (issue 45): `$schema` in the
// manifest and every scenario naming a schema the project holds, a pyproject.toml that needs no
// download, events as typed classes, tests that stand alone, and one test per scenario file.

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = ['EVENT_HANDLER', 'DATA_PROVIDER', 'APP'] as const;
const BLANK = {
  PLUGSMITH_BASE_URL: '',
  PLUGSMITH_TOKEN: '',
  PLUGSMITH_MESSAGING_URL: '',
  PLUGSMITH_API_KEY: '',
};

async function project(type: (typeof TYPES)[number]) {
  const work = await tempDir('plugsmith-python-project-');
  const dir = join(work, 'plugin');
  const env = { ...BLANK, PLUGSMITH_CONFIG_DIR: join(work, 'config') };
  await pythonProject(dir, type, env);
  return { dir, env };
}

/** Runs python3 in `cwd` without network-needing tools; its exit code and output. */
async function python(args: string[], cwd: string) {
  const child = spawn('python3', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, output };
}

describe.each(TYPES)('a Python %s project', (type) => {
  test('names its schemas from the manifest and each scenario, has a pyproject.toml needing no download, and types its events', async () => {
    const { dir } = await project(type);
    const manifestPath = join(dir, 'plugsmith.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { $schema: string };
    const schemaOf = async (file: string, schema: string) => {
      const path = resolve(dirname(file), schema);
      expect(existsSync(path), `${file}: $schema ${schema}`).toBe(true);
      // The project's copy is the schema of the plugsmith that wrote it.
      expect(await readFile(path, 'utf8')).toBe(
        await readFile(join(ROOT, path.split(/[\\/]/).pop()!), 'utf8'),
      );
    };
    await schemaOf(manifestPath, manifest.$schema);
    const scenarios = (await readdir(join(dir, 'scenarios'))).filter((f) => f.endsWith('.json'));
    expect(scenarios.length).toBeGreaterThan(0);
    for (const name of scenarios) {
      const file = join(dir, 'scenarios', name);
      const scenario = JSON.parse(await readFile(file, 'utf8')) as { $schema: string };
      await schemaOf(file, scenario.$schema);
    }

    // pyproject.toml: standard TOML, the project's name, no dependency, no build backend to fetch.
    const toml = await python(
      ['-c', 'import json, tomllib; print(json.dumps(tomllib.load(open("pyproject.toml", "rb"))))'],
      dir,
    );
    expect(toml.code, toml.output).toBe(0);
    const pyproject = JSON.parse(toml.output) as Record<string, Record<string, unknown>>;
    expect(pyproject.project.name).toBe('plugin');
    expect(pyproject.project.dependencies).toEqual([]);
    expect(pyproject['build-system']).toBeUndefined();

    // Each handler's event is a typed class (a TypedDict of plugin/event_types.py), not a bare dict.
    const hints = await python(
      [
        '-c',
        [
          'import json, typing',
          'from plugin import event_types',
          'from plugin.events import Plugin',
          'names = {n: str(typing.get_type_hints(f)["event"]) for n, f in vars(Plugin).items() if callable(f) and "event" in typing.get_type_hints(f)}',
          'print(json.dumps(names))',
        ].join('\n'),
      ],
      dir,
    );
    expect(hints.code, hints.output).toBe(0);
    const handlers = JSON.parse(hints.output) as Record<string, string>;
    expect(Object.keys(handlers).length, hints.output).toBeGreaterThan(0);
    for (const annotation of Object.values(handlers))
      expect(annotation).toMatch(
        /^<class 'plugin\.event_types\.\w+Event'>$|^typing\.Union\[plugin\.event_types\.\w+Event, /,
      );
  });
});

test('Python EVENT_HANDLER: one test per scenario file, and each test of the suite passes alone', async () => {
  const { dir, env } = await project('EVENT_HANDLER');
  const exec = (args: string[]) =>
    runCli(['emulator', 'exec', '--deploy', '--', 'python3', '-m', 'unittest', '-v', ...args], {
      cwd: dir,
      env: { ...env, PLUGSMITH_CLI: `${process.execPath} ${CLI}` },
      timeoutMs: 180_000,
    });
  const scenarios = await exec(['tests.test_scenarios']);
  expect(scenarios.code, scenarios.stdout + scenarios.stderr).toBe(0);
  expect(scenarios.stderr).toMatch(
    /test_message_answered \(tests\.test_scenarios\.ScenariosTest.*\) \.\.\. ok/,
  );
  expect(scenarios.stderr).toMatch(
    /test_two_conversations \(tests\.test_scenarios\.ScenariosTest.*\) \.\.\. ok/,
  );
  expect(scenarios.stderr).toContain('Ran 2 tests');

  // The test that answers a message, alone (its class's other test, which saw the install, not run first).
  const alone = await exec([
    '-k',
    'test_answers_a_users_message_as_the_character',
    'tests.test_plugin',
  ]);
  expect(alone.code, alone.stdout + alone.stderr).toBe(0);
  expect(alone.stderr).toContain('Ran 2 tests'); // without and under faults
  expect(alone.stderr).not.toContain('keeps_its_installation_token');
});
