import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { tempDir } from '../kit/index.js';

// plugsmith/client has a reference, docs/client.md, that names every export of the entry point
// (values and types alike, as TypeScript sees the module); and docs/testing-plugins.md's install
// step for a folder init did not make puts plugsmith/emulator and plugsmith/client there.

const ROOT = resolve(import.meta.dirname, '../..');

/** Every name the module exports, types included, as the compiler resolves its re-exports. */
function exportsOf(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    resolveJsonModule: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker.getExportsOfModule(module).map((symbol) => symbol.getName());
}

/** The code of a markdown text: fenced blocks and inline code spans. */
function codeOf(markdown: string): string {
  const code: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (fenced) code.push(line);
    else for (const span of line.matchAll(/`([^`]+)`/g)) code.push(span[1]!);
  }
  return code.join('\n');
}

test('docs/client.md names every export of plugsmith/client in code', {
  timeout: 120_000,
}, async () => {
  const names = exportsOf(join(ROOT, 'src/client/index.ts'));
  expect(names.length).toBeGreaterThan(50);
  expect(names).toContain('collect');
  const code = codeOf(await readFile(join(ROOT, 'docs/client.md'), 'utf8'));
  const missing = names.filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
  expect(missing, 'exports of plugsmith/client that docs/client.md does not name').toEqual([]);
  // Linked from the manual's index and the README's table.
  for (const page of ['docs/README.md', 'README.md'])
    expect(await readFile(join(ROOT, page), 'utf8')).toMatch(/\]\((docs\/)?client\.md\)/);
});

test("testing-plugins.md's install step puts plugsmith/emulator and plugsmith/client in a folder init did not make", {
  timeout: 120_000,
}, async () => {
  const guide = await readFile(join(ROOT, 'docs/testing-plugins.md'), 'utf8');
  expect(guide).toContain('npm install --save-dev /path/to/plugsmith');
  const folder = await tempDir('plugsmith-not-init-');
  await writeFile(
    join(folder, 'package.json'),
    JSON.stringify({ name: 'existing-plugin', private: true, type: 'module' }),
  );
  const run = async (command: string, args: string[]) => {
    const child = spawn(command, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, output };
  };
  // The documented command, with this checkout as /path/to/plugsmith (offline: it is a link).
  const installed = await run('npm', [
    'install',
    '--save-dev',
    '--offline',
    '--no-audit',
    '--no-fund',
    ROOT,
  ]);
  expect(installed.code, installed.output).toBe(0);
  const script = `
    import { startEmulator } from 'plugsmith/emulator';
    import { collect, createClient } from 'plugsmith/client';
    const emu = await startEmulator();
    const client = createClient({ baseUrl: emu.url, token: emu.token });
    const repositories = await collect((q) => client.repositories.listByOrg(emu.orgId, q));
    console.log(JSON.stringify({ repositories: repositories.length }));
    await client.close();
    await emu.close();
  `;
  await writeFile(join(folder, 'check.js'), script);
  const used = await run(process.execPath, ['check.js']);
  expect(used.code, used.output).toBe(0);
  expect(JSON.parse(used.output.trim().split('\n').at(-1)!)).toEqual({
    repositories: expect.any(Number),
  });
});
