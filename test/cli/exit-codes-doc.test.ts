import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { EXIT } from '../../src/errors.js';

// docs/exit-codes.md is written by hand: its table and src/errors.ts's EXIT name the same codes, each once.

test('the exit-code table of docs/exit-codes.md has one row per code of EXIT, and no other', async () => {
  const doc = await readFile(resolve(import.meta.dirname, '../../docs/exit-codes.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
  expect(rows).toEqual(Object.values(EXIT).sort((a, b) => a - b));
});
