import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '#contract';
import type { MemoryReading } from './memory-child.js';

// The embedded store enforces the 100 MB default on a streamed body without holding the body in
// memory. Memory is read in a child `node --expose-gc` (memory-child.ts), never in the test files'
// shared worker: a V8 flag set there would stay set for every later file.

const ROOT = resolve(import.meta.dirname, '../../../..');

/** memory-child.ts bundled (its packages left to this checkout's node_modules), run in `node --expose-gc`. */
async function readMemory(): Promise<MemoryReading> {
  const bundle = await build({
    entryPoints: [resolve(import.meta.dirname, 'memory-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'warning',
  });
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(bundle.outputFiles[0]!.text);
  const [code] = (await once(child, 'close')) as [number | null];
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as MemoryReading;
}

it('enforces the 100 MB default on a streamed body, never holding the body in memory', async () => {
  const reading = await readMemory();
  expect(reading.status).toBe(413);
  expect(reading.body).toMatchObject({
    error: { message: `The upload is larger than ${MAX_FILE_BYTES} bytes` },
  });
  expect(reading.stored).toBe(false);
  expect(reading.leftovers).toEqual([]);
  expect(reading.held).toBeLessThan(16 * 1024 * 1024);
}, 120_000);
