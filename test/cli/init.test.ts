import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCliInProcess as runCli } from '../kit/index.js';
import { loadManifest } from '../../src/manifest/load.js';

// `plugsmith init` run in this process (CI=true, no terminal; the kit's runner): by flags, --yes,
// refusals; and a copy of the package run as a process, for what it writes as that copy.

let root: string;
const version = (
  JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'plugsmith-init-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under a folder, relative, sorted. */
async function filesUnder(dir: string, sub = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, sub), { withFileTypes: true })) {
    const path = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(dir, path)));
    else out.push(path);
  }
  return out.sort();
}

// This checkout is not a registry release (no dist/release.json): init vendors it.
const VENDORED = `vendor/plugsmith-${version}.tgz`;
const COMMON = [
  VENDORED,
  '.cursor/mcp.json',
  '.gitignore',
  '.mcp.json',
  '.vscode/mcp.json',
  'AGENTS.md',
  'CLAUDE.md',
  'README.md',
  'package.json',
  'plugsmith.json',
  'src/config.ts',
  'src/event-shapes.ts',
  'src/installations.ts',
  'src/main.ts',
  'src/platform.ts',
  'src/plugin.ts',
  'src/server.ts',
  'src/token-store.ts',
  'src/webhooks.ts',
  'test/harness.ts',
  'test/plugin.test.ts',
  'test/scenarios.test.ts',
  'tsconfig.build.json',
  'tsconfig.json',
  'vitest.config.ts',
];

const CASES = [
  {
    type: 'DATA_PROVIDER',
    installs: [{ name: 'local docs', repository: 'repo_docs' }],
    events: ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
    scopes: ['REPOSITORY_FILES_READ'],
    extra: ['scenarios/file-added-and-removed.json', 'scenarios/several-files.json'],
    code: [
      'REPOSITORY_FILE_ADDED',
      'platform.uploads.accessUrl',
      'platform.repositories.files.listAll',
    ],
  },
  {
    type: 'EVENT_HANDLER',
    installs: [{ name: 'local agent', agent: 'agent_nova' }],
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
    extra: ['scenarios/message-answered.json', 'scenarios/two-conversations.json', 'src/reply.ts'],
    code: ['AGENT_MESSAGE_RECEIVED', 'platform.agentMessages.write(agentId, conversationId'],
  },
  {
    type: 'APP',
    installs: [{ name: 'local app', app: 'app_local' }],
    events: ['PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED'],
    scopes: [],
    extra: ['scenarios/install-uninstall.json', 'scenarios/secret-rotated.json', 'src/history.ts'],
    code: ['PLUGIN_INSTALLED', 'PLUGIN_UNINSTALLED', 'history.record'],
  },
] as const;

describe('plugsmith init by flags', () => {
  for (const c of CASES) {
    it(`writes a ${c.type} project with every placeholder filled and a valid manifest`, async () => {
      const dir = join(root, `by-flags-${c.type}`);
      const name = `flags-${c.type.toLowerCase().replace('_', '-')}`;
      // Every value as a flag: nothing is asked, so --yes is not needed.
      const result = await runCli([
        'init',
        dir,
        '--name',
        name,
        '--type',
        c.type,
        '--events',
        c.events.join(','),
        '--scopes',
        c.scopes.join(','),
        '--port',
        '3456',
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Created the ${c.type} plugin "${name}"`);
      expect(result.stderr).toContain('npm install');

      expect(await filesUnder(dir)).toEqual([...COMMON, ...c.extra].sort());
      for (const file of await filesUnder(dir)) {
        expect(await readFile(join(dir, file), 'utf8'), file).not.toMatch(/\{\{\w+\}\}/);
      }

      const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
      // plugsmith is for development and tests; a running plugin needs only the Standard Webhooks library.
      expect(pkg).toMatchObject({
        name,
        private: true,
        type: 'module',
        devDependencies: { plugsmith: `file:${VENDORED}` },
      });
      expect(Object.keys(pkg.dependencies)).toEqual(['standardwebhooks']);
      expect(pkg.scripts).toMatchObject({
        dev: expect.stringContaining('src/main.ts'),
        test: expect.stringContaining('vitest run'),
        build: 'tsc -p tsconfig.build.json',
        start: 'node dist/main.js',
      });

      const raw = JSON.parse(await readFile(join(dir, 'plugsmith.json'), 'utf8'));
      expect(raw.$schema).toBe('./node_modules/plugsmith/plugsmith.schema.json');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      expect(raw.plugin.webhookUrl).toBe('http://127.0.0.1:${PORT:-3456}/webhook');
      const manifest = await loadManifest(join(dir, 'plugsmith.json'), {});
      expect(manifest.plugin).toMatchObject({
        name,
        type: c.type,
        events: [...c.events],
        scopes: [...c.scopes],
        webhookUrl: 'http://127.0.0.1:3456/webhook',
      });
      // `plugsmith dev` installs the plugin on the emulator's default workspace.
      expect(manifest.installs).toEqual(c.installs);
      expect(
        (await loadManifest(join(dir, 'plugsmith.json'), { PORT: '4999' })).plugin.webhookUrl,
      ).toBe('http://127.0.0.1:4999/webhook');

      // The token store writes owner-only files, through a temporary file renamed into place.
      const store = await readFile(join(dir, 'src/token-store.ts'), 'utf8');
      expect(store).toContain(
        "writeFile(temporary, JSON.stringify(all, null, 2) + '\\n', { mode: 0o600 })",
      );
      expect(store).toContain('chmod(temporary, 0o600)');
      expect(store).toContain('rename(temporary, this.path)');
      // The server verifies signatures with the project's own src/webhooks.ts (on standardwebhooks);
      // plugsmith is imported for types only, which the build erases. The plugin handles its type's events.
      expect(await readFile(join(dir, 'src/server.ts'), 'utf8')).toContain(
        "import { createWebhookHandler, type WebhookHandlers } from './webhooks.js'",
      );
      expect(await readFile(join(dir, 'src/webhooks.ts'), 'utf8')).toContain(
        "import { Webhook } from 'standardwebhooks'",
      );
      for (const file of (await filesUnder(dir)).filter((f) => f.startsWith('src/'))) {
        expect(await readFile(join(dir, file), 'utf8'), file).not.toMatch(
          /^import (?!type )[^;]*from 'plugsmith/m,
        );
      }
      const plugin = await readFile(join(dir, 'src/plugin.ts'), 'utf8');
      for (const snippet of c.code) expect(plugin).toContain(snippet);
      expect(await readFile(join(dir, 'src/config.ts'), 'utf8')).toContain(
        "Number(env.PORT || '3456')",
      );
      expect(await readFile(join(dir, '.gitignore'), 'utf8')).toContain('.data/');
      // vendor/ is committed: a clone of the project must install the same plugsmith.
      expect(await readFile(join(dir, '.gitignore'), 'utf8')).not.toMatch(/vendor/);
      const readme = await readFile(join(dir, 'README.md'), 'utf8');
      expect(readme).toContain(`# ${name}`);
      expect(readme).toContain(`\`${VENDORED}\` is the plugsmith that wrote this project`);
    });
  }

  it('uses defaults with --yes: EVENT_HANDLER, the folder name, port 3000', async () => {
    const dir = join(root, 'my-bot');
    const result = await runCli(['init', dir, '--yes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      dir,
      name: 'my-bot',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      port: 3000,
      plugsmithVersion: version,
      plugsmithDependency: `file:${VENDORED}`,
    });
    expect(printed).not.toHaveProperty('pluginsmithVersion');
    expect(printed.files).toContain('src/reply.ts');
    expect(printed.files).toContain(VENDORED);
    // One line says where the dependency comes from.
    expect(result.stderr).toContain(
      `plugsmith ${version} is not a release the npm registry serves, so the project installs it from ${VENDORED}`,
    );
    expect((await loadManifest(join(dir, 'plugsmith.json'), {})).plugin.webhookUrl).toBe(
      'http://127.0.0.1:3000/webhook',
    );
  });

  it('creates ./<name> when no folder is given', async () => {
    const result = await runCli(['init', '--name', 'from-name', '--type', 'APP', '--yes'], {
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(
      (await loadManifest(join(root, 'from-name', 'plugsmith.json'), {})).plugin,
    ).toMatchObject({ name: 'from-name', type: 'APP' });
  });

  it('adds the events and scopes its template needs, and says so', async () => {
    const dir = join(root, 'completed');
    const result = await runCli([
      'init',
      dir,
      '--type',
      'DATA_PROVIDER',
      '--events',
      'PLUGIN_INSTALLED',
      '--scopes',
      '',
      '--yes',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Added REPOSITORY_FILE_ADDED, REPOSITORY_FILE_REMOVED, REPOSITORY_FILES_READ',
    );
    const manifest = await loadManifest(join(dir, 'plugsmith.json'), {});
    expect(manifest.plugin.events).toEqual([
      'PLUGIN_INSTALLED',
      'REPOSITORY_FILE_ADDED',
      'REPOSITORY_FILE_REMOVED',
    ]);
    expect(manifest.plugin.scopes).toEqual(['REPOSITORY_FILES_READ']);
  });
});

describe('plugsmith init refusals', () => {
  it('refuses a folder whose name is not a valid plugin name instead of rewriting it (exit 2, naming the rule and --name)', async () => {
    for (const folder of ['My Bot', 'MyBot', '_private']) {
      const dir = join(root, folder);
      const result = await runCli(['init', dir, '--yes']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `the folder's name "${folder}" is not a valid plugin name: a name may hold only lowercase letters, digits and - . _`,
      );
      expect(result.stderr).toMatch(/Pass --name [a-z0-9]/);
      await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    }
    // --name is taken as given, whatever the folder is called.
    const named = await runCli([
      'init',
      join(root, 'Named Folder'),
      '--yes',
      '--name',
      'named-bot',
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(
      JSON.parse(await readFile(join(root, 'Named Folder', 'package.json'), 'utf8')).name,
    ).toBe('named-bot');
  });

  it('refuses a non-empty folder with exit 2 and writes nothing; --force writes into it', async () => {
    const dir = join(root, 'occupied');
    await mkdir(dir);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const refused = await runCli(['init', dir, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not empty.*--force/);
    expect(await readdir(dir)).toEqual(['notes.txt']);

    const forced = await runCli(['init', dir, '--yes', '--force', '--type', 'APP']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    expect((await loadManifest(join(dir, 'plugsmith.json'), {})).plugin.type).toBe('APP');
  });

  it('--force into a cloned folder writes nothing through its links: a file link is replaced, a folder link out is refused', async () => {
    const outside = join(root, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'precious.txt'), 'mine');
    const clone = join(root, 'linked-clone');
    await mkdir(clone);
    await symlink(join(outside, 'precious.txt'), join(clone, 'README.md'));
    await symlink(join(outside, 'gone.json'), join(clone, 'plugsmith.json'));
    const replaced = await runCli(['init', clone, '--yes', '--force', '--type', 'APP']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(await readFile(join(outside, 'precious.txt'), 'utf8')).toBe('mine');
    expect(await readdir(outside)).toEqual(['precious.txt']);
    expect(await readFile(join(clone, 'README.md'), 'utf8')).toContain('APP');

    // A folder of the project (the editor's settings, the vendored plugsmith) that links out of it.
    for (const folder of ['.vscode', 'vendor']) {
      const linked = join(root, `linked-${folder}`);
      await mkdir(linked);
      await symlink(outside, join(linked, folder));
      const refused = await runCli(['init', linked, '--yes', '--force', '--type', 'APP']);
      expect(refused.code, refused.stdout).toBe(2);
      expect(refused.stderr).toMatch(
        /leads outside the project.*links that lead out of it are refused/,
      );
      expect(await readdir(outside)).toEqual(['precious.txt']);
    }
  });

  it('says what to run next, each comment in one column, in both languages', async () => {
    for (const lang of ['typescript', 'python']) {
      const result = await runCli(['init', join(root, `next-${lang}`), '--yes', '--lang', lang]);
      expect(result.code, result.stderr).toBe(0);
      const next = (result.stdout + result.stderr).split('Next:\n')[1].split('\nMore in')[0];
      const commented = next.split('\n').filter((line) => line.includes(' # '));
      expect(commented.length, next).toBe(3);
      expect(new Set(commented.map((line) => line.indexOf(' # '))).size, next).toBe(1);
      expect(next).toContain(lang === 'python' ? '  plugsmith dev ' : '  npx plugsmith dev ');
    }
  });

  it('counts a folder holding only .git as empty', async () => {
    const dir = join(root, 'fresh-repo');
    await mkdir(join(dir, '.git'), { recursive: true });
    const result = await runCli(['init', dir, '--yes']);
    expect(result.code, result.stderr).toBe(0);
  });

  it('without --yes and without a terminal, names every value it would ask for at once, and --yes (exit 2)', async () => {
    const cases: Array<[string[], string]> = [
      [[], '--name, --type, --events, --scopes and --port'],
      [['--name', 'x'], '--type, --events, --scopes and --port'],
      [['--name', 'x', '--lang', 'python'], '--type, --events, --scopes and --port'],
      [['--name', 'x', '--type', 'APP'], '--events, --scopes and --port'],
      [['--name', 'x', '--type', 'APP', '--events', 'PLUGIN_INSTALLED'], '--scopes and --port'],
      [['--name', 'x', '--type', 'APP', '--events', 'PLUGIN_INSTALLED', '--scopes', ''], '--port'],
    ];
    for (const [index, [flags, missing]] of cases.entries()) {
      const dir = join(root, `prompt-${index}`);
      const result = await runCli(['init', dir, ...flags]);
      expect(result.code, `${flags.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(
        `missing ${missing}: pass ${missing.includes(' ') ? 'them' : 'it'}, or --yes to take the defaults`,
      );
      await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    }
    // Every value given: nothing to ask, so no --yes needed.
    const complete = await runCli([
      'init',
      join(root, 'complete'),
      '--name',
      'x',
      '--type',
      'APP',
      '--events',
      'PLUGIN_INSTALLED',
      '--scopes',
      '',
      '--port',
      '3001',
    ]);
    expect(complete.code, complete.stderr).toBe(0);
  }, 90_000);

  it('rejects bad values with exit 2 naming the flag', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--type', 'WIDGET'], /--type.*WIDGET/],
      [['--events', 'NOT_AN_EVENT'], /--events <kinds>.*unknown event kind "NOT_AN_EVENT"/],
      [['--events', 'WEBHOOK_CHALLENGE'], /--events: "WEBHOOK_CHALLENGE"/],
      [['--scopes', 'ROOT'], /--scopes <scopes>.*unknown scope "ROOT"/],
      // Any case is taken, and a typo is named with the closest kind.
      [['--events', 'plugin_instaled'], /\(Did you mean PLUGIN_INSTALLED\?\)/],
      [['--port', '70000'], /--port must be a whole number from 1 to 65535/],
      [['--name', 'Has Spaces'], /--name "Has Spaces" may hold only lowercase letters/],
      [['--name', 'MyBot'], /--name "MyBot" may hold only lowercase letters/],
    ];
    for (const [flags, message] of cases) {
      const dir = join(root, 'bad-values');
      const result = await runCli(['init', dir, '--yes', ...flags]);
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    }
  }, 90_000);
});

describe('the plugsmith dependency init writes', () => {
  const ROOT = join(import.meta.dirname, '../..');

  /** A copy of this package as npm installs it (package.json, bin, dist, templates), with `version` and a release mark or none. */
  async function installedCopy(version: string, mark: unknown): Promise<string> {
    const copy = await mkdtemp(join(tmpdir(), 'plugsmith-installed-'));
    onTestFinished(() => rm(copy, { recursive: true, force: true }));
    for (const part of ['bin', 'dist', 'templates', 'plugsmith.schema.json', 'README.md'])
      await cp(join(ROOT, part), join(copy, part), { recursive: true });
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    await writeFile(join(copy, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    if (mark !== undefined) await writeFile(join(copy, 'dist/release.json'), JSON.stringify(mark));
    return copy;
  }

  async function initWith(
    copy: string,
    name: string,
  ): Promise<{
    pkg: { devDependencies: { plugsmith: string } };
    stderr: string;
    vendor: string[];
  }> {
    const dir = join(root, name);
    // The copy's own bin, so that the running plugsmith is the copy.
    const result = await promisify(execFile)(
      process.execPath,
      [join(copy, 'bin/plugsmith.js'), 'init', dir, '--yes'],
      { env: { ...process.env, CI: 'true', NO_COLOR: '1' } },
    );
    const vendor = await readdir(join(dir, 'vendor')).catch(() => []);
    return {
      pkg: JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')),
      stderr: result.stderr,
      vendor,
    };
  }

  it('is ^<version> for a registry release (the mark npm publish leaves), with nothing vendored', async () => {
    const copy = await installedCopy('1.2.3', { version: '1.2.3' });
    const { pkg, stderr, vendor } = await initWith(copy, 'from-release');
    expect(pkg.devDependencies.plugsmith).toBe('^1.2.3');
    expect(vendor).toEqual([]);
    expect(stderr).not.toContain('vendor/');
  });

  it('vendors a copy without the mark, a mark of another version, and a prerelease', async () => {
    const cases = [
      ['unmarked', '1.2.3', undefined],
      ['stale-mark', '1.2.4', { version: '1.2.3' }],
      ['prerelease', '1.3.0-beta.1', { version: '1.3.0-beta.1' }],
    ] as const;
    for (const [name, version, mark] of cases) {
      const { pkg, stderr, vendor } = await initWith(await installedCopy(version, mark), name);
      expect(pkg.devDependencies.plugsmith, name).toBe(`file:vendor/plugsmith-${version}.tgz`);
      expect(vendor, name).toEqual([`plugsmith-${version}.tgz`]);
      expect(stderr, name).toContain(
        `plugsmith ${version} is not a release the npm registry serves`,
      );
    }
  }, 90_000);
});

describe('init packs this plugsmith once per build', () => {
  it('keeps the packed tarball in the cache, keyed by the files it holds, and copies it on the next init', async () => {
    const { cachedPackPath, packFingerprint } = await import('../../src/project/dependency.js');
    const cache = await mkdtemp(join(tmpdir(), 'plugsmith-cache-'));
    onTestFinished(() => rm(cache, { recursive: true, force: true }));
    const env = { XDG_CACHE_HOME: cache };
    const first = await runCli(['init', join(root, 'cached-1'), '--yes'], { env });
    expect(first.code, first.stderr).toBe(0);
    const packed = await readdir(join(cache, 'plugsmith', 'packs'));
    expect(packed).toHaveLength(1);
    const repo = new URL('../../', import.meta.url).pathname;
    const runCache = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache;
    try {
      expect(join(cache, 'plugsmith', 'packs', packed[0]!)).toBe(
        cachedPackPath(version, await packFingerprint(repo, version)),
      );
    } finally {
      // The run's own cache folder (test/kit/run-setup.ts), where the run's other inits find its pack.
      if (runCache === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = runCache;
    }
    // The next init copies the cached file: a marked cache entry shows it was used, not repacked.
    await writeFile(join(cache, 'plugsmith', 'packs', packed[0]!), 'cached tarball');
    const second = await runCli(['init', join(root, 'cached-2'), '--yes'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(await readFile(join(root, 'cached-2', VENDORED), 'utf8')).toBe('cached tarball');
  }, 60_000);

  it('packs again when a packed file changes', async () => {
    const { packFingerprint } = await import('../../src/project/dependency.js');
    const dir = await mkdtemp(join(tmpdir(), 'plugsmith-fingerprint-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'package.json'), '{}');
    await writeFile(join(dir, 'dist', 'cli.js'), 'one');
    const before = await packFingerprint(dir, '1.0.0');
    expect(await packFingerprint(dir, '1.0.0')).toBe(before);
    await writeFile(join(dir, 'dist', 'cli.js'), 'two!');
    expect(await packFingerprint(dir, '1.0.0')).not.toBe(before);
    expect(await packFingerprint(dir, '1.0.1')).not.toBe(before);
  });
});
