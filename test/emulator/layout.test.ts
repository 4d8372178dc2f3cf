import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * The emulator's layout as docs/architecture.md describes it for contributors, held against the
 * tree: every folder the page lists exists, and every folder of emulator/ holding TypeScript is listed
 * (the dashboard's React app aside, which the page names as part of emulator/dashboard/).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function listedFolders(): string[] {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const block = /<!-- layout:start -->([\s\S]*?)<!-- layout:end -->/.exec(page);
  if (!block) throw new Error('docs/architecture.md has no layout block');
  return [...block[1].matchAll(/^(emulator\/[\w/-]*)/gm)].map((m) => m[1].replace(/\/$/, ''));
}

function foldersWithCode(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const here = entries.some((e) => e.isFile() && /\.tsx?$/.test(e.name))
    ? [relative(ROOT, dir)]
    : [];
  return [
    ...here,
    ...entries
      .filter((e) => e.isDirectory() && !(e.name === 'app' && dir.endsWith('dashboard')))
      .flatMap((e) => foldersWithCode(join(dir, e.name))),
  ];
}

describe('the emulator layout described in docs/architecture.md', () => {
  test('the page lists the folders (the block is read)', () => {
    expect(listedFolders()).toContain('emulator/api/plugins');
  });

  test('matches the tree, both ways', () => {
    const listed = listedFolders().sort();
    const actual = foldersWithCode(join(ROOT, 'emulator')).sort();
    expect({
      missingFromPage: actual.filter((f) => !listed.includes(f)),
      missingFromTree: listed.filter((f) => !actual.includes(f)),
    }).toEqual({ missingFromPage: [], missingFromTree: [] });
  });
});
