import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { sh, userEnv } from '../kit/shell.js';
import { freePort } from '../kit/ports.js';
import { npmInstall } from '../kit/installed-project.js';
import { killMarked } from '../kit/processes.js';

// The README's install paths, as a person on a fresh machine meets them: nothing goes into this
// checkout's node_modules; every `npm install -g` goes to a temporary global prefix
// (npm_config_prefix) whose bin/ is put first on PATH, and every project lives in a temporary
// folder outside the repository. Slow (a build and several npm installs); it needs the npm
// registry or a warm npm cache for the projects' other dependencies, like test/templates.

const ROOT = resolve(import.meta.dirname, '../..');
const MINUTES = 60_000;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
/** What the EVENT_HANDLER template's src/reply.ts answers: `You said: ${text}`. */
const REPLY = /You said: \S/;

let work: string;
/** The tarball `npm pack` made from a copy of this checkout without dist/. */
let tarball: string;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/cli.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm test does it) before these tests');
  work = await mkdtemp(join(tmpdir(), 'plugsmith-install-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** A temporary global npm prefix, and a person's environment that uses it: its bin/ first on PATH. */
async function globalPrefix(
  name: string,
): Promise<{ prefix: string; env: Record<string, string> }> {
  const prefix = join(work, name);
  await mkdir(prefix, { recursive: true });
  const bin = process.platform === 'win32' ? prefix : join(prefix, 'bin');
  return {
    prefix,
    env: userEnv({
      npm_config_prefix: prefix,
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
    }),
  };
}

/** Starts a long-running command in its own process group; stopped with SIGINT (then SIGKILL) when the test ends. */
function background(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): {
  child: ChildProcess;
  lines: string[];
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  output(): string;
} {
  // What it starts in process groups of their own (dev's plugin) inherits the mark, and goes with it.
  const mark = randomUUID();
  const child = spawn(command, args, {
    cwd,
    env: { ...env, PLUGSMITH_TEST_PROCESS: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters) wake();
  });
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      // SIGINT is Ctrl+C: dev stops the plugin's process group and its emulator.
      process.kill(-child.pid!, 'SIGINT');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    killMarked('PLUGSMITH_TEST_PROCESS', mark);
  });
  return {
    child,
    lines,
    output: () => `${lines.join('\n')}\n--- stderr ---\n${err}`,
    waitForLine: (pattern, timeoutMs) =>
      new Promise((resolvePromise, reject) => {
        const check = (): boolean => {
          const line = lines.find((l) => pattern.test(l));
          if (line === undefined) return false;
          waiters.delete(wake);
          clearTimeout(timer);
          resolvePromise(line);
          return true;
        };
        const wake = (): void => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}\n--- stderr ---\n${err}`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      }),
  };
}

describe('an unbuilt checkout', () => {
  it('says in one line to run `npm run build`, with no stack trace', async () => {
    const clone = join(work, 'unbuilt');
    await mkdir(join(clone, 'bin'), { recursive: true });
    await cp(join(ROOT, 'bin/plugsmith.js'), join(clone, 'bin/plugsmith.js'));
    await cp(join(ROOT, 'package.json'), join(clone, 'package.json'));
    const run = await sh(
      process.execPath,
      [join(clone, 'bin/plugsmith.js'), 'init', 'x', '--yes'],
      clone,
      30_000,
    );
    expect(run.code).toBe(1);
    expect(run.output.trim().split('\n')).toEqual([
      expect.stringContaining('run `npm run build` in '),
    ]);
    expect(run.output).toContain(clone);
    expect(run.output).not.toContain('ERR_MODULE_NOT_FOUND');
  });
});

describe('npm pack', () => {
  it(
    'builds dist/ in a checkout (prepack), over a stale one; without the build tools packs dist/ as it is; marks only `npm publish` of a release',
    async () => {
      // A checkout as a fresh clone has it (the tracked tree; dependencies as `npm ci` leaves them), not
      // rebuilt since a `git pull`: its dist/ holds one file, older than the sources. With the build tools
      // installed, packing builds: every file of dist/ in the tarball is the build's, never the stale one.
      // (One build, not two: `npm run build` empties dist/ first, so a clone without dist/ builds the same.)
      const clone = join(work, 'clone');
      const skipped = new Set([
        'node_modules',
        'dist',
        '.git',
        '.plugsmith',
        '.plugsmith-data',
        'coverage',
      ]);
      await cp(ROOT, clone, {
        recursive: true,
        filter: (source) =>
          !skipped.has(source.slice(ROOT.length + 1).split(/[\\/]/)[0]) && !source.endsWith('.tgz'),
      });
      await symlink(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
      const STALE = '// stale build, from before the last git pull\n';
      await mkdir(join(clone, 'dist'));
      await writeFile(
        join(clone, 'dist/cli.js'),
        STALE + (await readFile(join(ROOT, 'dist/cli.js'), 'utf8')),
      );
      expect(existsSync(join(clone, 'dist/emulator/index.js'))).toBe(false);

      const packed = await sh(
        'npm',
        ['pack', '--json', '--pack-destination', work],
        clone,
        8 * MINUTES,
      );
      expect(packed.code, packed.output).toBe(0);
      const [info] = JSON.parse(packed.stdout) as Array<{
        filename: string;
        files: Array<{ path: string }>;
      }>;
      const files = info.files.map((f) => f.path);
      for (const file of [
        'bin/plugsmith.js',
        'dist/cli.js',
        'dist/emulator/index.js',
        'dist/emulator/index.d.ts',
        'dist/webhooks/index.d.ts',
        'plugsmith.schema.json',
        'templates/common/_gitignore',
        'templates/EVENT_HANDLER/src/reply.ts',
      ]) {
        expect(files, file).toContain(file);
      }
      expect(await readFile(join(clone, 'dist/cli.js'), 'utf8')).not.toContain(STALE);
      // Not published: no release mark, so an init run by this tarball vendors it.
      expect(files).not.toContain('dist/release.json');
      expect(
        files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('.ci/')),
      ).toBe(false);
      tarball = join(work, info.filename);
      expect(info.filename).toBe(`plugsmith-${version}.tgz`);

      // Without the build tools (an installed copy: no src/, no devDependencies), prepack packs the
      // dist/ it finds, untouched; with no dist/ either it fails, naming the fix.
      const installed = join(work, 'installed-copy');
      await mkdir(installed);
      for (const entry of [
        'package.json',
        'bin',
        'dist',
        'templates',
        'plugsmith.schema.json',
        '.ci',
      ])
        await cp(join(clone, entry), join(installed, entry), { recursive: true });
      await writeFile(
        join(installed, 'dist/cli.js'),
        STALE + (await readFile(join(installed, 'dist/cli.js'), 'utf8')),
      );
      const built = (await stat(join(installed, 'dist/cli.js'))).mtimeMs;
      const reused = await sh(
        process.execPath,
        ['.ci/pack.js', 'prepack'],
        installed,
        30_000,
        userEnv({ npm_command: 'pack' }),
      );
      expect(reused.code, reused.output).toBe(0);
      expect((await stat(join(installed, 'dist/cli.js'))).mtimeMs).toBe(built);
      expect(await readFile(join(installed, 'dist/cli.js'), 'utf8')).toContain(STALE);
      // The mark (here, where prepack does not build): written under `npm publish` of a release, removed by postpack.
      const pack = (phase: string, command: string) =>
        sh(
          process.execPath,
          ['.ci/pack.js', phase],
          installed,
          30_000,
          userEnv({ npm_command: command }),
        );
      expect((await pack('prepack', 'publish')).code).toBe(0);
      expect(JSON.parse(await readFile(join(installed, 'dist/release.json'), 'utf8'))).toEqual({
        version,
      });
      expect((await pack('postpack', 'publish')).code).toBe(0);
      expect(existsSync(join(installed, 'dist/release.json'))).toBe(false);
      // A prerelease is never marked, nor is anything packed other than by publish.
      await writeFile(
        join(installed, 'package.json'),
        JSON.stringify({
          ...JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')),
          version: `${version}-rc.1`,
        }),
      );
      expect((await pack('prepack', 'publish')).code).toBe(0);
      expect(existsSync(join(installed, 'dist/release.json'))).toBe(false);
      await rm(join(installed, 'dist'), { recursive: true });
      const none = await sh(
        process.execPath,
        ['.ci/pack.js', 'prepack'],
        installed,
        30_000,
        userEnv({ npm_command: 'pack' }),
      );
      expect(none.code).toBe(1);
      expect(none.output).toContain('dist/ is missing and cannot be built here');
    },
    10 * MINUTES,
  );

  it(
    'a tarball installed globally runs, without EBADENGINE, and its init vendors itself into a project that installs',
    async () => {
      expect(tarball, 'the npm pack test makes the tarball').toBeDefined();
      const { prefix, env } = await globalPrefix('prefix-tarball');
      const install = await sh(
        'npm',
        [
          'install',
          '-g',
          tarball,
          '--engine-strict',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
        ],
        work,
        8 * MINUTES,
        env,
      );
      expect(install.code, install.output).toBe(0);
      expect(install.output).not.toContain('EBADENGINE');
      const shown = await sh('plugsmith', ['--version'], work, 30_000, env);
      expect(shown.stdout.trim(), shown.output).toBe(version);

      const projects = join(work, 'from-tarball');
      await mkdir(projects);
      const init = await sh('plugsmith', ['init', 'tar-bot', '--yes'], projects, 2 * MINUTES, env);
      expect(init.code, init.output).toBe(0);
      expect(init.output).toContain(
        `installs it from vendor/plugsmith-${version}.tgz (packed from ${join(prefix, 'lib/node_modules/plugsmith')})`,
      );
      const project = join(projects, 'tar-bot');
      // A tree the run installed for the same package.json and vendored tarball is copied in first (test/kit/installed-project.ts).
      const projectInstall = await npmInstall(
        project,
        ['--engine-strict', '--prefer-offline', '--no-audit', '--no-fund'],
        { env },
      );
      expect(projectInstall.code, projectInstall.output).toBe(0);
      expect(projectInstall.output).not.toContain('EBADENGINE');
      const local = await sh('npx', ['plugsmith', '--version'], project, 60_000, env);
      expect(local.stdout.trim(), local.output).toBe(version);
    },
    20 * MINUTES,
  );
});

describe('a fresh machine, as the README says', () => {
  it(
    'installs plugsmith from this checkout (npm install -g .), then init, npm install, npm test, dev, and a triggered AGENT_MESSAGE_RECEIVED answered by the plugin',
    async () => {
      const { prefix, env } = await globalPrefix('prefix-checkout');
      const linked = await sh(
        'npm',
        ['install', '-g', '.', '--no-audit', '--no-fund'],
        ROOT,
        4 * MINUTES,
        env,
      );
      expect(linked.code, linked.output).toBe(0);
      expect(existsSync(join(prefix, 'bin/plugsmith'))).toBe(true);
      // The checkout's own node_modules gained nothing: the prefix holds the link.
      expect(existsSync(join(ROOT, 'node_modules/plugsmith'))).toBe(false);

      // An empty folder outside the repository; `plugsmith` from PATH.
      const projects = join(work, 'fresh');
      await mkdir(projects);
      const init = await sh(
        'plugsmith',
        ['init', 'my-bot', '--type', 'EVENT_HANDLER', '--yes'],
        projects,
        2 * MINUTES,
        env,
      );
      expect(init.code, init.output).toBe(0);
      expect(init.output).toContain(`installs it from vendor/plugsmith-${version}.tgz`);
      const project = join(projects, 'my-bot');

      const install = await npmInstall(project, ['--prefer-offline', '--no-audit', '--no-fund'], {
        env,
      });
      expect(install.code, install.output).toBe(0);
      expect(install.output).not.toContain('EBADENGINE');
      const test = await sh('npm', ['test'], project, 4 * MINUTES, env);
      expect(test.code, test.output).toBe(0);
      expect(test.output).toMatch(/Tests\s+(\d+) passed \(\1\)/);

      // Inside the project, `npx plugsmith` is the project's own plugsmith. Free ports and an own
      // config dir keep this from meeting any other emulator on the machine.
      const devEnv = {
        ...env,
        PLUGSMITH_CONFIG_DIR: join(work, 'config'),
        PLUGSMITH_BASE_URL: '',
        PLUGSMITH_TOKEN: '',
        PLUGSMITH_MESSAGING_URL: '',
        PLUGSMITH_API_KEY: '',
      };
      const port = await freePort();
      const dev = background(
        'npx',
        [
          'plugsmith',
          'dev',
          '--plugin-port',
          String(port),
          '--emulator-port',
          '0',
          '--messaging-port',
          '0',
        ],
        project,
        devEnv,
      );
      await dev.waitForLine(/PLUGIN_INSTALLED\s+delivered/, 3 * MINUTES);

      // No login: with nothing configured, the CLI uses the running local emulator.
      const trigger = await sh(
        'npx',
        ['plugsmith', 'trigger', 'AGENT_MESSAGE_RECEIVED'],
        project,
        2 * MINUTES,
        devEnv,
      );
      expect(trigger.code, trigger.output).toBe(0);
      // The character's message the plugin wrote, with the template's reply.
      expect(trigger.output, `${trigger.output}\n--- dev ---\n${dev.output()}`).toMatch(REPLY);
    },
    25 * MINUTES,
  );
});
