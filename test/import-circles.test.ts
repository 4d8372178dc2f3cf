import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { circles, importGraph } from './helpers/import-graph.js';

/**
 * No module of src/ or emulator/ reaches itself again through its imports, within either half or
 * across them (type-only imports included: a circle of types is a circle of knowledge all the
 * same). A circle makes load order matter and keeps a module from being understood alone.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { files, graph } = importGraph([resolve(ROOT, 'src'), resolve(ROOT, 'emulator')]);

describe('the import graph of src/ and emulator/', () => {
  test('is read: the CLI entry reaches the commands and the client', () => {
    expect(files.length).toBeGreaterThan(100);
    const main = graph.get(resolve(ROOT, 'src/main.ts'))!;
    expect(main.some((f) => f.includes('/src/commands/'))).toBe(true);
    expect(graph.get(resolve(ROOT, 'src/client/client.ts'))!.length).toBeGreaterThan(2);
  });

  test('has no import circle', () => {
    expect(circles(graph, ROOT)).toEqual([]);
  });
});
