import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';

// Proves each template the way a user meets it: the packed plugsmith tarball installed into a
// freshly generated project, whose own `npm test` (tsc, then an end-to-end test against the
// in-memory emulator) must pass. Slow (npm install three times), so the timeouts are long.

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = ['DATA_PROVIDER', 'EVENT_HANDLER', 'APP'] as const;
const MINUTES = 60_000;

let work: string;
let tarball: string;

interface Run {
  code: number | null;
  output: string;
}

/**
 * Runs a command without the environment of the npm and vitest that run this test: a nested
 * npm would otherwise take this package's prefix, and a nested vitest this run's worker settings.
 */
function sh(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|VITEST|NODE_ENV$|TEST$)/i.test(k)));
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...env, NO_COLOR: '1', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/cli.js')) || !existsSync(join(ROOT, 'dist/webhooks/index.d.ts'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it) before packing');
  }
  work = await mkdtemp(join(tmpdir(), 'plugsmith-templates-'));
  const packed = await sh('npm', ['pack', '--json', '--pack-destination', work], ROOT, 3 * MINUTES);
  expect(packed.code, packed.output).toBe(0);
  const [info] = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = info.files.map((f) => f.path);
  // npm keeps the templates, with the files it would mangle under their safe names.
  expect(files).toContain('templates/common/_gitignore');
  expect(files).toContain('templates/common/package.json');
  for (const type of TYPES) expect(files).toContain(`templates/${type}/src/plugin.ts`);
  tarball = join(work, info.filename);
}, 4 * MINUTES);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('generated projects pass their own tests against the packed package', () => {
  for (const type of TYPES) {
    it(
      type,
      async () => {
        const dir = join(work, type.toLowerCase());
        const init = await runCli(['init', dir, '--type', type, '--yes']);
        expect(init.code, init.stderr).toBe(0);

        const pkgPath = join(dir, 'package.json');
        const pkg = JSON.parse(await readFile(pkgPath, 'utf8'));
        expect(pkg.dependencies.plugsmith).toMatch(/^\^\d+\.\d+\.\d+/);
        pkg.dependencies.plugsmith = `file:${tarball}`;
        await writeFile(pkgPath, JSON.stringify(pkg, null, 2) + '\n');

        const install = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir, 8 * MINUTES);
        expect(install.code, install.output).toBe(0);
        // The project's plugsmith is the packed one, not a link to this checkout.
        expect(existsSync(join(dir, 'node_modules/plugsmith/templates/common/_gitignore'))).toBe(true);
        expect(existsSync(join(dir, 'node_modules/plugsmith/src'))).toBe(false);

        const test = await sh('npm', ['test'], dir, 4 * MINUTES);
        expect(test.code, test.output).toBe(0);
        // vitest's summary: every test passed, none skipped or failed.
        expect(test.output).toMatch(/Tests\s+(\d+) passed \(\1\)/);
      },
      12 * MINUTES,
    );
  }
});
