import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // End-to-end tests spawn the CLI many times; on a loaded 2-core machine each spawn can take seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    // Every response the integration suites receive is checked against the OpenAPI document.
    setupFiles: ['test/helpers/contract-check.ts'],
    // A home of the run's own (HOME, XDG folders) and a check that no process a test started outlives
    // the run; then this checkout packed once, for every `plugsmith init` of the run.
    globalSetup: ['test/kit/run-setup.ts', 'test/kit/pack-once.ts'],
  },
});
