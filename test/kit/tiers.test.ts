import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { processTestFiles } from './tiers.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the tiers of the suite', () => {
  const processTier = processTestFiles(ROOT);

  test('a file that starts processes, itself or through a helper, a browser, or init (npm pack) is of the process tier', () => {
    expect(processTier).toEqual(
      expect.arrayContaining([
        'test/cli/dev.test.ts', // spawnCli, from test/kit/cli-process.ts
        'test/install/install.test.ts', // node:child_process itself
        'test/dashboard/overview.test.ts', // Chromium, through test/kit/browser.ts
        'test/cli/trigger-template.test.ts', // init in this process: npm pack
        'test/kit/kit.test.ts', // the kit's spawned CLI (test/kit/spawn.ts)
        'test/kit/terminal.test.ts', // a pseudo-terminal (@lydell/node-pty, test/kit/terminal.ts)
      ]),
    );
  });

  test('a file that runs the CLI in this process, or only servers, is of the quick tier', () => {
    for (const file of [
      'test/client/sse.test.ts',
      'test/cli/plugins.test.ts',
      'test/manifest/deploy.test.ts',
      'test/contract/openapi.test.ts',
      'test/kit/tiers.test.ts',
    ]) {
      expect(processTier, file).not.toContain(file);
    }
  });
});
