import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { scenarioSchemaText, withFormatReference } from '../../scripts/scenario-reference.js';

// scenario.schema.json and the format reference of docs/scenarios.md are generated from the
// TypeBox schema (src/scenario/schema.ts); a change to it without `npm run docs` leaves them stale.

describe('scenario.schema.json', () => {
  test('is what `npm run docs` writes from the scenario schema now', async () => {
    const committed = await readFile(
      new URL('../../scenario.schema.json', import.meta.url),
      'utf8',
    );
    expect(
      committed === scenarioSchemaText(),
      'scenario.schema.json is stale: run `npm run docs` and commit it',
    ).toBe(true);
  });

  test('is shipped in the package', async () => {
    const pkg = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { files: string[] };
    expect(pkg.files).toContain('scenario.schema.json');
  });

  test("docs/scenarios.md's format reference is what `npm run docs` writes", async () => {
    const page = await readFile(new URL('../../docs/scenarios.md', import.meta.url), 'utf8');
    expect(page.includes('<!-- format:start -->')).toBe(true);
    expect(
      page === withFormatReference(page),
      'docs/scenarios.md is stale: run `npm run docs` and commit it',
    ).toBe(true);
  });
});

describe('the format reference', () => {
  test('marks no field required whose meaning states a default', async () => {
    const page = await readFile(new URL('../../docs/scenarios.md', import.meta.url), 'utf8');
    const rows = page
      .split('\n')
      .filter((line) => /^\| `[^`]+` \|/.test(line))
      .map((line) => line.split(' | '));
    expect(rows.length).toBeGreaterThan(20);
    const requiredWithDefault = rows.filter(
      ([, , required, meaning]) => required === 'yes' && /\bdefault\b/i.test(meaning ?? ''),
    );
    expect(requiredWithDefault.map((row) => row[0])).toEqual([]);
    // And the other way round: the "none" window, documented with a default, may be left out.
    const { validateScenario } = await import('../../src/scenario/validate.js');
    const checked = validateScenario({
      name: 'silence',
      steps: [
        { id: 'conv', conversation: {} },
        {
          message: { conversation: '${conv.id}', text: 'quiet' },
          expect: [{ none: { reply: true } }],
        },
      ],
    });
    expect(checked.problems).toEqual([]);
  });
});
