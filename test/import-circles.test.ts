import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  circles,
  type ImportEdge,
  type ImportRule,
  importEdges,
  importGraph,
  ruleBreaks,
} from './kit/import-graph.js';

/**
 * No module of src/ or emulator/ reaches itself again through its imports, within either half or
 * across them (type-only imports included: a circle of types is a circle of knowledge all the
 * same). A circle makes load order matter and keeps a module from being understood alone.
 *
 * And the two halves meet only where docs/architecture.md says: what both use lives in
 * src/shared/, the emulator imports nothing else of src/, and the CLI reaches the emulator only
 * through its public entry (emulator/index.ts, which the package exports as plugsmith/emulator).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { files, graph } = importGraph([resolve(ROOT, 'src'), resolve(ROOT, 'emulator')]);
const edges = importEdges([resolve(ROOT, 'src'), resolve(ROOT, 'emulator')]);

const isCli = (path: string) => path.startsWith('src/') && !path.startsWith('src/shared/');

/** The boundaries between the CLI (src/), what both halves share (src/shared/) and the emulator. */
const BOUNDARIES: ImportRule[] = [
  {
    name: 'the emulator imports nothing of src/ but src/shared/',
    governs: (from, to) => from.startsWith('emulator/') && to.startsWith('src/'),
    allows: (_from, to) => to.startsWith('src/shared/'),
  },
  {
    name: 'the CLI reaches the emulator only through emulator/index.ts (plugsmith/emulator)',
    governs: (from, to) => isCli(from) && to.startsWith('emulator/'),
    allows: (_from, to) => to === 'emulator/index.ts',
  },
  {
    name: 'src/shared/ imports nothing of src/ or emulator/ outside itself',
    governs: (from, to) =>
      from.startsWith('src/shared/') && (to.startsWith('src/') || to.startsWith('emulator/')),
    allows: (_from, to) => to.startsWith('src/shared/'),
  },
  {
    name: 'the contract imports nothing of the project outside itself',
    governs: (from) => from.startsWith('src/shared/contract/'),
    allows: (_from, to) => to.startsWith('src/shared/contract/'),
  },
];

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

  test('is read across the halves: the emulator uses src/shared/, the CLI the emulator entry', () => {
    const crossing = (from: string, to: string) =>
      edges.some(
        (edge) => edge.from.startsWith(resolve(ROOT, from)) && edge.to === resolve(ROOT, to),
      );
    expect(crossing('emulator/', 'src/shared/contract/index.ts')).toBe(true);
    // JSON imports count: the dashboard's sample events are files of src/shared/.
    expect(edges.some((edge) => edge.to.endsWith('.json'))).toBe(true);
    expect(crossing('src/', 'emulator/index.ts')).toBe(true);
  });

  test('keeps the boundaries between the CLI, src/shared/ and the emulator', () => {
    expect(ruleBreaks(edges, BOUNDARIES, ROOT)).toEqual([]);
  });

  test('the boundary rules name each import that breaks them', () => {
    const at = (from: string, to: string): ImportEdge => ({
      from: resolve(ROOT, from),
      to: resolve(ROOT, to),
    });
    const broken = [
      at('emulator/app.ts', 'src/errors.ts'),
      at('emulator/dashboard/app/views/trigger.tsx', 'src/trigger/fixtures/X.json'),
      at('src/dev/faults.ts', 'emulator/webhooks/faults.ts'),
      at('src/shared/webhooks/handler.ts', 'src/ui/did-you-mean.ts'),
      at('src/shared/http/sse.ts', 'emulator/index.ts'),
      at('src/shared/contract/schema.ts', 'src/shared/http/undici.ts'),
    ];
    const kept = [
      at('emulator/app.ts', 'src/shared/contract/index.ts'),
      at('src/commands/emulator/start.ts', 'emulator/index.ts'),
      at('src/shared/webhooks/events.ts', 'src/shared/contract/index.ts'),
      at('src/commands/plugins/index.ts', 'src/client/index.ts'),
    ];
    expect(ruleBreaks([...broken, ...kept], BOUNDARIES, ROOT)).toEqual([
      'the emulator imports nothing of src/ but src/shared/: emulator/app.ts -> src/errors.ts',
      'the emulator imports nothing of src/ but src/shared/: emulator/dashboard/app/views/trigger.tsx -> src/trigger/fixtures/X.json',
      'the CLI reaches the emulator only through emulator/index.ts (plugsmith/emulator): src/dev/faults.ts -> emulator/webhooks/faults.ts',
      'src/shared/ imports nothing of src/ or emulator/ outside itself: src/shared/webhooks/handler.ts -> src/ui/did-you-mean.ts',
      'src/shared/ imports nothing of src/ or emulator/ outside itself: src/shared/http/sse.ts -> emulator/index.ts',
      'the contract imports nothing of the project outside itself: src/shared/contract/schema.ts -> src/shared/http/undici.ts',
    ]);
  });
});
