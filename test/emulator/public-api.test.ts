import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { emulatorInternals } from '../../emulator/internals.js';

// What plugsmith/emulator offers a plugin's tests (issue 42 item 5): the Emulator's documented fields and helpers,
// never the services behind them. This repository's own tests reach those through emulatorInternals(emu), which
// the package's exports leave out.

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The property names of an exported interface of the package's emulator entry, and every name it exports. */
function entryOf(file: string): { exports: string[]; members: (name: string) => string[] } {
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
  const symbols = checker.getExportsOfModule(module);
  return {
    exports: symbols.map((symbol) => symbol.getName()),
    members: (name) => {
      const found = symbols.find((symbol) => symbol.getName() === name)!;
      const symbol = found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
      const declared = checker.getDeclaredTypeOfSymbol(symbol);
      return declared.getProperties().map((property) => property.getName());
    },
  };
}

/** Runs an ES module snippet with Node from the package's root, where `plugsmith/…` resolves to this package. */
async function importFromPackage(specifier: string): Promise<string> {
  const code = `import(${JSON.stringify(specifier)}).then((m) => console.log('loaded', Object.keys(m).join(',')), (e) => console.log(e.code))`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
  });
  return stdout.trim();
}

describe('plugsmith/emulator keeps the services internal', () => {
  test('the Emulator type has no services field; the default workspace is there instead', () => {
    const entry = entryOf(join(ROOT, 'src/emulator-entry.ts'));
    expect(entry.exports).toContain('startEmulator');
    expect(entry.exports).not.toContain('emulatorInternals');
    expect(entry.exports).not.toContain('EmulatorServices');
    const members = entry.members('Emulator');
    expect(members).toEqual(
      expect.arrayContaining(['url', 'adminHeaders', 'deliveries', 'faults', 'agentId']),
    );
    expect(members).not.toContain('services');
  });

  test("the package's exports offer no way to the internals, and the built declarations do not name them", async () => {
    const declarations = join(ROOT, 'dist/emulator/index.d.ts');
    if (!existsSync(declarations))
      throw new Error('dist/ is missing: run `npm run build` (npm test does it) before this test');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(manifest.exports).sort()).toEqual([
      './client',
      './emulator',
      './package.json',
      './webhooks',
    ]);
    expect(JSON.stringify(manifest.exports)).not.toContain('internals');
    expect(await importFromPackage('plugsmith/emulator/internals')).toBe(
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
    );
    expect(await importFromPackage('plugsmith/dist/emulator/internals.js')).toBe(
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
    );

    const published = await importFromPackage('plugsmith/emulator');
    expect(published).toMatch(/^loaded .*\bstartEmulator\b/);
    expect(published).not.toMatch(/Internals/);
    const text = readFileSync(declarations, 'utf8');
    expect(text).toMatch(/interface Emulator \{/);
    expect(text).not.toMatch(/\bservices\b|emulatorInternals|EmulatorServices/);
  });

  test('a running emulator carries no services; emulatorInternals reaches them for this repository only', async () => {
    const emu = await startEmulator();
    try {
      expect('services' in emu).toBe(false);
      expect(JSON.stringify(Object.keys(emu))).not.toContain('services');
      const { db } = emulatorInternals(emu);
      expect(db.agents.get(emu.agentId!)?.orgId).toBe(emu.orgId);
      expect(db.characters.get(emu.characterId!)?.agentId).toBe(emu.agentId);
      expect(db.users.get(emu.userId!)).toBeDefined();
      // Only what startEmulator returned is known: a copy of its fields is not an emulator.
      expect(() => emulatorInternals({ ...emu })).toThrow(
        /not an emulator startEmulator\(\) returned/,
      );
    } finally {
      await emu.close();
    }
  });
});
