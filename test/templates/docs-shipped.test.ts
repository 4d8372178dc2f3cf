import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { tempDir } from '../kit/index.js';

// Every plugsmith doc a generated project names (its README, AGENTS.md, the tests' comments) is in
// the package the project installs (issue 45: the READMEs named docs/scenarios.md "of plugsmith",
// which the package did not ship). The package is the tarball init packed into vendor/, which holds
// what `npm pack` (and so `npm publish`) puts in it.

const run = promisify(execFile);

describe.each(['typescript', 'python'] as const)('a %s project', (lang) => {
  test('names only docs the packed plugsmith contains', async () => {
    const work = await tempDir('plugsmith-docs-shipped-');
    const dir = join(work, 'plugin');
    const init = await runCli(
      ['init', dir, '--type', 'EVENT_HANDLER', '--lang', lang, '--yes', '--json'],
      {
        env: { PLUGSMITH_CONFIG_DIR: join(work, 'config') },
      },
    );
    expect(init.code, init.stderr).toBe(0);
    const { files } = JSON.parse(init.stdout) as { files: string[] };
    const tarball = files.find((f) => /^vendor\/plugsmith-.*\.tgz$/.test(f));
    expect(tarball, files.join('\n')).toBeDefined();
    const packed = new Set(
      (await run('tar', ['-tzf', join(dir, tarball!)])).stdout.split('\n').filter(Boolean),
    );

    const named = new Set<string>();
    for (const file of files.filter((f) => /\.(md|ts|py|json|toml)$/.test(f))) {
      const text = await readFile(join(dir, file), 'utf8');
      for (const [, doc] of text.matchAll(/\bdocs\/([\w.-]+\.md)\b/g)) named.add(doc);
    }
    // The README's scenario format and the harness's fault profiles, at least.
    expect([...named]).toEqual(expect.arrayContaining(['scenarios.md', 'fault-injection.md']));
    for (const doc of named) expect(packed.has(`package/docs/${doc}`), doc).toBe(true);
  });
});
