import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'dashboard'
        ? []
        : sources(join(dir, e.name))
      : /\.tsx?$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** Relative imports of a file, as paths from the repository root. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) =>
    relative(root, resolve(dirname(file), m[1]!)),
  );
}

describe('imports run one way (docs/architecture.md)', () => {
  test('the emulator imports only src/shared of src', () => {
    const wrong = sources(join(root, 'emulator')).flatMap((f) =>
      imports(f)
        .filter((i) => i.startsWith('src/') && !i.startsWith('src/shared/'))
        .map((i) => `${relative(root, f)} -> ${i}`),
    );
    expect(wrong).toEqual([]);
  });

  test('the contract imports nothing of the project outside itself', () => {
    const wrong = sources(join(root, 'src/shared/contract')).flatMap((f) =>
      imports(f).filter((i) => !i.startsWith('src/shared/contract/')),
    );
    expect(wrong).toEqual([]);
  });
});
