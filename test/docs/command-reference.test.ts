import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { commandReference } from '../../scripts/command-reference.js';

// docs/commands.md is generated from the command registry; a command or option changed without
// `npm run docs` leaves it stale, and this fails.

describe('docs/commands.md', () => {
  test('is what `npm run docs` writes from the command registry now', async () => {
    const committed = await readFile(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    expect(
      committed === commandReference(),
      'docs/commands.md is stale: run `npm run docs` and commit it',
    ).toBe(true);
  });
});
