import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { processTestFiles } from './test/kit/tiers.js';

// `npm run test:quick`: the tests that run in this process, without the ones that start the CLI as
// a process, npm, tmux or a browser (test/kit/tiers.ts finds those). `npm test` runs everything.
export default mergeConfig(base, defineConfig({ test: { exclude: ['**/node_modules/**', ...processTestFiles(import.meta.dirname)] } }));
