import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { sh } from '../helpers/shell.js';

// Proves each template the way a user meets it: `plugsmith init` from this checkout writes the
// project with this plugsmith packed into its vendor/ folder, and the project's own `npm install`
// and `npm test` (tsc, then an end-to-end test against the in-memory emulator) must pass, untouched.
// Slow (npm install three times), so the timeouts are long.

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = ['DATA_PROVIDER', 'EVENT_HANDLER', 'APP'] as const;
const MINUTES = 60_000;

let work: string;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/cli.js')) || !existsSync(join(ROOT, 'dist/webhooks/index.d.ts'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it) before these tests');
  }
  work = await mkdtemp(join(tmpdir(), 'plugsmith-templates-'));
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('generated projects install and pass their own tests, as init wrote them', () => {
  for (const type of TYPES) {
    it(
      type,
      async () => {
        const dir = join(work, type.toLowerCase());
        const init = await runCli(['init', dir, '--type', type, '--yes']);
        expect(init.code, init.stderr).toBe(0);

        // Nothing rewritten: this checkout is no registry release, so init packed it into the project.
        const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
        expect(pkg.dependencies.plugsmith).toBe(`file:vendor/plugsmith-${version}.tgz`);

        // Strict engines: nothing in the tree may want a newer Node than the project promises (20).
        const install = await sh('npm', ['install', '--engine-strict', '--prefer-offline', '--no-audit', '--no-fund'], dir, 8 * MINUTES);
        expect(install.code, install.output).toBe(0);
        expect(install.output).not.toContain('EBADENGINE');
        // The project's plugsmith is the packed one, not a link to this checkout; npm kept the templates.
        expect(existsSync(join(dir, 'node_modules/plugsmith/templates/common/_gitignore'))).toBe(true);
        expect(existsSync(join(dir, 'node_modules/plugsmith/dist/cli.js'))).toBe(true);
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
