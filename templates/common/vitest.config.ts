import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file starts its own emulator and plugin server on free ports.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
