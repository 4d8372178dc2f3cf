import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../bin/plugsmith.js', import.meta.url));

// `plugsmith emulator openapi | head`: the reader closes the pipe after its first lines.
it('a reader that closes stdout early ends the command quietly (exit 0, no EPIPE stack)', async () => {
  const child = spawn(process.execPath, [CLI, 'emulator', 'openapi'], {
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(stderr).not.toMatch(/EPIPE|at /);
  expect(code).toBe(0);
}, 60_000);
