import { availableParallelism, totalmem } from 'node:os';
import { defineConfig } from 'vitest/config';
import ProcessTierFirst from './test/kit/sequencer.js';

// A worker per core, at least two, and 2 GiB of the machine's memory for each: a worker runs its
// files' emulators and starts their CLI processes, npm and a browser (the largest process of a run
// reached 1.2 GB). The suite is CPU-bound, so a worker beyond the cores only adds contention: three
// workers on a 2-core machine took 609 s against 631 s with two, within the run-to-run spread, for
// 11% more CPU. A fixed two left the other cores of a contributor's laptop idle.
const WORKERS = Math.max(2, Math.min(availableParallelism(), Math.floor(totalmem() / 2 ** 31)));

export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // End-to-end tests spawn the CLI many times; on a loaded 2-core machine each spawn can take seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: WORKERS,
    // The slow files (processes, npm, a browser) start first, so the run does not end on one of them.
    sequence: { sequencer: ProcessTierFirst },
    // Test files share their worker processes (a worker runs file after file, not one file each): each file
    // loading the emulator, the CLI and their dependencies afresh cost about a third of the suite's
    // CPU time. A file still gets its own test module, hooks and kit teardown (test/kit/file-setup.ts);
    // what is shared is the modules' state, so a test never relies on a fresh process (one that does
    // asks for fresh modules with vi.resetModules(), or spawns one).
    isolate: false,
    // The kit's teardown of each file; then every response the integration suites receive is checked
    // against the OpenAPI document.
    setupFiles: ['test/kit/file-setup.ts', 'test/kit/contract-check.ts'],
    // A home of the run's own (HOME, XDG folders) and a check that no process a test started outlives
    // the run; then this checkout packed once, for every `plugsmith init` of the run.
    globalSetup: ['test/kit/run-setup.ts', 'test/kit/pack-once.ts'],
  },
});
