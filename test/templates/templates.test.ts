import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import { runCli } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { npmInstall } from '../kit/installed-project.js';
import { sh, userEnv } from '../kit/shell.js';

// Proves each template the way a user meets it: `plugsmith init` from this checkout writes the
// project with this plugsmith packed into its vendor/ folder, and the project's own `npm install`
// and `npm test` (tsc, then an end-to-end test against the in-memory emulator) must pass, untouched.
// Then the way it ships: `npm run build`, the project without node_modules copied to a clean folder,
// `npm ci --omit=dev` there (the package-lock of the full install), and `npm start` serving the
// plugin from dist/ with only its runtime dependencies, within the dependency budget, passing
// `plugsmith check` against the emulator it is deployed to.
// Slow (an npm install, npm test, a build and npm ci per type), so the timeouts are long.

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = ['DATA_PROVIDER', 'EVENT_HANDLER', 'APP'] as const;
const MINUTES = 60_000;
/** What a production install may weigh (issue 27): under 15 packages and 5 MB. */
const BUDGET = { packages: 15, bytes: 5 * 1024 * 1024 };

const t = useCliEnv();
let work: string;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

beforeAll(async () => {
  if (
    !existsSync(join(ROOT, 'dist/cli.js')) ||
    !existsSync(join(ROOT, 'dist/webhooks/index.d.ts'))
  ) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it) before these tests');
  }
  work = await mkdtemp(join(tmpdir(), 'plugsmith-templates-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** The packages under a node_modules folder (scoped ones and nested node_modules included), by path. */
async function installedPackages(modules: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(modules, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dirs = entry.name.startsWith('@')
      ? (await readdir(join(modules, entry.name))).map((n) => join(modules, entry.name, n))
      : [join(modules, entry.name)];
    for (const dir of dirs) {
      if (!existsSync(join(dir, 'package.json'))) continue;
      found.push(dir);
      found.push(...(await installedPackages(join(dir, 'node_modules'))));
    }
  }
  return found;
}

/** Bytes a folder takes on disk, as `du` counts them (allocated blocks). */
async function diskUsage(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.blocks * 512;
  let total = info.blocks * 512;
  for (const name of await readdir(path)) total += await diskUsage(join(path, name));
  return total;
}

/** `npm start` in `dir`, in its own process group (npm and the node it starts), stopped when the test ends. */
async function npmStart(
  dir: string,
  env: Record<string, string>,
): Promise<{ listening: string; output: () => string }> {
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: userEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  const listening = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`npm start printed no "listening" line within 60 s:\n${output}`)),
      60_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`npm start exited (${code}) before listening:\n${output}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += line + '\n';
      if (/ is listening at /.test(line)) {
        clearTimeout(timer);
        done(line);
      }
    });
  });
  return { listening, output: () => output };
}

/** Runs the project's `plugsmith dev`, edits src/reply.ts twice with `sed -i`, and checks that each trigger gets the new reply. */
async function editTwiceUnderDev(dir: string): Promise<void> {
  const configDir = await mkdtemp(join(work, 'cfg-dev-'));
  const env = userEnv({
    PLUGSMITH_CONFIG_DIR: configDir,
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_API_KEY: '',
    PLUGSMITH_PROFILE: '',
    PLUGSMITH_EMULATOR: '',
  });
  const plugsmith = join(dir, 'node_modules', '.bin', 'plugsmith');
  const port = await freePort();
  const dev = spawn(
    plugsmith,
    ['dev', '--plugin-port', String(port), '--emulator-port', '0', '--messaging-port', '0'],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  dev.stdout!.on('data', (d) => (output += d));
  dev.stderr!.on('data', (d) => (output += d));
  onTestFinished(async () => {
    if (dev.exitCode !== null || dev.signalCode !== null) return;
    const exited = once(dev, 'exit');
    process.kill(-dev.pid!, 'SIGINT');
    await exited;
  });
  const shows = async (pattern: RegExp): Promise<void> => {
    for (const deadline = Date.now() + 2 * MINUTES; !pattern.test(output); ) {
      if (Date.now() > deadline) throw new Error(`dev never printed ${pattern}:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const trigger = async (): Promise<string> => {
    const run = await sh(
      plugsmith,
      ['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'],
      dir,
      MINUTES,
      env,
    );
    expect(run.code, `${run.output}\n--- dev ---\n${output}`).toBe(0);
    return JSON.parse(run.stdout).reply.content as string;
  };
  await shows(/installed local agent \(pin_/);
  expect(await trigger()).toMatch(/^You said: /);
  const edits = [
    ['You said:', 'Heard:'],
    ['Heard:', 'Got:'],
  ];
  for (const [index, [before, after]] of edits.entries()) {
    const sed = await sh(
      'sed',
      ['-i', `s/${before}/${after}/`, join('src', 'reply.ts')],
      dir,
      MINUTES,
    );
    expect(sed.code, sed.output).toBe(0);
    // tsx watch restarts the server: a new "is listening" line per save.
    await shows(new RegExp(`( is listening at [\\s\\S]*?){${index + 2}}`));
    expect(await trigger()).toMatch(new RegExp(`^${after} `));
  }
}

describe('generated projects install and pass their own tests, as init wrote them, then ship', () => {
  for (const type of TYPES) {
    it(
      type,
      async () => {
        const dir = join(work, type.toLowerCase());
        const init = await runCli(['init', dir, '--type', type, '--yes']);
        expect(init.code, init.stderr).toBe(0);

        // Nothing rewritten: this checkout is no registry release, so init packed it into the project,
        // as a devDependency: the CLI, the emulator and the client are for development and tests.
        const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
        expect(pkg.devDependencies.plugsmith).toBe(`file:vendor/plugsmith-${version}.tgz`);
        expect(Object.keys(pkg.dependencies)).toEqual(['standardwebhooks']);

        // Strict engines: nothing in the tree may want a newer Node than the project promises (20).
        // The run installs this tree from nothing once; a later project asking npm for the same
        // starts from a copy of it (test/kit/installed-project.ts).
        const install = await npmInstall(dir, [
          '--engine-strict',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
        ]);
        expect(install.code, install.output).toBe(0);
        expect(install.output).not.toContain('EBADENGINE');
        // npm 11 runs a dependency's install script only when package.json approves it, and warns
        // of the others: the template approves esbuild's (tsx and vitest use esbuild), the only one.
        expect(install.output).not.toMatch(/install-scripts|allowScripts/);
        // The project's plugsmith is the packed one, not a link to this checkout; npm kept the templates.
        expect(existsSync(join(dir, 'node_modules/plugsmith/templates/common/_gitignore'))).toBe(
          true,
        );
        expect(existsSync(join(dir, 'node_modules/plugsmith/dist/cli.js'))).toBe(true);
        expect(existsSync(join(dir, 'node_modules/plugsmith/src'))).toBe(false);

        const test = await sh('npm', ['test'], dir, 4 * MINUTES);
        expect(test.code, test.output).toBe(0);
        // vitest's summary: every test passed, none skipped or failed.
        expect(test.output).toMatch(/Tests\s+(\d+) passed \(\1\)/);

        // The build: plain JavaScript in dist/, the sources only (no tests), no runtime import of plugsmith.
        const build = await sh('npm', ['run', 'build'], dir, 2 * MINUTES);
        expect(build.code, build.output).toBe(0);
        const built = (await readdir(join(dir, 'dist'))).sort();
        expect(built).toContain('main.js');
        expect(
          built.every((f) => f.endsWith('.js')),
          built.join(', '),
        ).toBe(true);
        for (const file of built) {
          expect(await readFile(join(dir, 'dist', file), 'utf8'), file).not.toMatch(
            /(from\s*|import\s*\(\s*|require\s*\(\s*)['"]plugsmith/,
          );
        }

        // A clean copy, as a deploy gets it: the project (with its package-lock and dist/) without node_modules.
        const shipped = join(work, `${type.toLowerCase()}-production`);
        await cp(dir, shipped, {
          recursive: true,
          filter: (source) => source.slice(dir.length + 1).split(/[\\/]/)[0] !== 'node_modules',
        });
        expect(existsSync(join(shipped, 'package-lock.json'))).toBe(true);
        const ci = await sh(
          'npm',
          ['ci', '--omit=dev', '--engine-strict', '--prefer-offline', '--no-audit', '--no-fund'],
          shipped,
          4 * MINUTES,
        );
        expect(ci.code, ci.output).toBe(0);
        const modules = join(shipped, 'node_modules');
        expect(existsSync(join(modules, 'plugsmith'))).toBe(false);
        expect(existsSync(join(modules, 'tsx'))).toBe(false);
        const packages = await installedPackages(modules);
        expect(packages.length, packages.join('\n')).toBeLessThan(BUDGET.packages);
        expect(await diskUsage(modules)).toBeLessThan(BUDGET.bytes);

        // Without its secret the production build says what to set, not a command of the dev install it does not have.
        const unconfigured = await sh(
          'node',
          ['dist/main.js'],
          shipped,
          MINUTES,
          userEnv({ PLUGSMITH_WEBHOOK_SECRET: '' }),
        );
        expect(unconfigured.code).toBe(1);
        expect(unconfigured.output).toContain(
          "PLUGSMITH_WEBHOOK_SECRET is not set: set it to the plugin's webhookSecret",
        );
        expect(unconfigured.output).not.toContain('npm run dev');
        // A value that is no webhookSecret is refused at start, and not printed.
        const mistyped = await sh(
          'node',
          ['dist/main.js'],
          shipped,
          MINUTES,
          userEnv({ PLUGSMITH_WEBHOOK_SECRET: 'whsec_Z29vZA== whsec_n0pe-typed' }),
        );
        expect(mistyped.code).toBe(1);
        expect(mistyped.output).toContain(
          "PLUGSMITH_WEBHOOK_SECRET is not the plugin's webhookSecret: each secret is whsec_ and base64",
        );
        expect(mistyped.output).not.toContain('n0pe-typed');

        // Deployed to the emulator with the port it will listen on; `npm start` with the production environment.
        const port = await freePort();
        const manifest = join(shipped, 'plugsmith.json');
        const deployed = await t.json(['deploy', '--manifest', manifest, '--org', ORG], {
          PORT: String(port),
        });
        const pluginId: string = deployed.pluginId;
        expect(pluginId, JSON.stringify(deployed)).toMatch(/^plg_/);
        const secret = (await t.cli(['plugins', 'secret', pluginId])).stdout.trim();
        const started = await npmStart(shipped, {
          PLUGSMITH_WEBHOOK_SECRET: secret,
          PORT: String(port),
          PLUGSMITH_BASE_URL: t.emu.url,
          DATA_DIR: join(work, `${type}-data`),
        });
        const webhookUrl = `http://127.0.0.1:${port}/webhook`;
        expect(started.listening).toContain(webhookUrl);

        const health = await fetch(`http://127.0.0.1:${port}/health`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ ok: true });

        const verified = await t.json(['plugins', 'verify', pluginId]);
        expect(verified.verified, `${JSON.stringify(verified)}\n${started.output()}`).toBe(true);
        if (type === 'EVENT_HANDLER')
          await t.json([
            'handlers',
            'add',
            'agent_nova',
            '--plugin',
            pluginId,
            '--scopes',
            'AGENT_MESSAGE_WRITE',
            '--dispatch-mode',
            'SYNC',
          ]);
        const check = await t.cli(['check', webhookUrl, '--plugin', pluginId, '--json']);
        expect(
          check.code,
          `${check.stdout}${check.stderr}\n--- npm start ---\n${started.output()}`,
        ).toBe(0);
        const report = JSON.parse(check.stdout) as {
          ok: boolean;
          checks: Array<{ id: string; status: string }>;
        };
        expect(report.ok).toBe(true);
        // check's wrongly signed deliveries each left a line in the plugin's own log, without the secret.
        expect(started.output()).toMatch(
          /refused delivery "[^"]+": no signature made with this plugin's secret/,
        );
        expect(started.output()).not.toContain(secret.slice('whsec_'.length));
        const notPassed = report.checks.filter((c) => c.status !== 'passed').map((c) => c.id);
        // Only an EVENT_HANDLER writes messages, which the side-effect checks count.
        expect(notPassed).toEqual(
          type === 'EVENT_HANDLER' ? [] : ['valid-delivery', 'duplicate-delivery'],
        );

        // `plugsmith dev` in the installed project (its own plugsmith, `npm run dev` = tsx watch) restarts the
        // plugin on every save, also `sed -i` (a new file renamed over the old, as editors save): each reply is the new code's.
        if (type === 'EVENT_HANDLER') await editTwiceUnderDev(dir);
      },
      14 * MINUTES,
    );
  }
});
