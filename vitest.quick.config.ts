import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { processTestFiles } from './test/kit/tiers.js';

// `npm run test:quick`: the tests that run in this process, without the ones that start the CLI as
// a process, npm, a pseudo-terminal or a browser (test/kit/tiers.ts finds those); no build, no pack. `npm test`
// runs everything.
export default defineConfig({
  test: {
    ...base.test,
    globalSetup: ['test/kit/run-setup.ts'],
    exclude: ['**/node_modules/**', ...processTestFiles(import.meta.dirname)],
  },
});
