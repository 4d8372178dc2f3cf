import { describe, expect, test, vi } from 'vitest';
import {
  checkJsonSchema,
  compiledSchemaCounts,
  validateAgainst,
} from '../../../emulator/validation/json-schema.js';

describe('checkJsonSchema', () => {
  test.each([
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft-07/schema#',
    'https://json-schema.org/draft/2020-12/schema',
    'http://json-schema.org/draft/2020-12/schema',
    'https://json-schema.org/draft/2020-12/schema#',
  ])('accepts $schema %s', (uri) => {
    expect(
      checkJsonSchema({ $schema: uri, type: 'object', properties: { a: { type: 'string' } } }, [
        'inputsSchema',
      ]),
    ).toEqual([]);
  });

  test('refuses other drafts and invalid schemas with details', () => {
    expect(
      checkJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' }, ['s'])[0].path,
    ).toEqual(['s', '$schema']);
    expect(checkJsonSchema({ type: 12 }, ['s']).length).toBeGreaterThan(0);
    expect(
      checkJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: 5 }, [
        's',
      ]).length,
    ).toBeGreaterThan(0);
  });

  test('a 2020-12 schema written with http validates values by 2020-12 rules', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
    };
    expect(validateAgainst(schema, ['a'], ['v'])).toEqual([]);
    expect(validateAgainst(schema, [1], ['v']).length).toBeGreaterThan(0);
  });
});

describe('compiled supplied schemas', () => {
  test('stay bounded: past 1000 distinct schemas the oldest are dropped', () => {
    for (let i = 0; i < 1500; i++) {
      const schema = {
        type: 'object',
        properties: { [`field${i}`]: { type: 'string', maxLength: i + 1 } },
      };
      expect(validateAgainst(schema, { [`field${i}`]: 'x' }, ['inputs'])).toEqual([]);
    }
    const after = compiledSchemaCounts();
    expect(after.validators).toBe(1000);
    // A schema used again is recompiled after its eviction and still validates.
    expect(
      validateAgainst(
        { type: 'object', properties: { field0: { type: 'string', maxLength: 1 } } },
        { field0: 'xx' },
        ['inputs'],
      ),
    ).toHaveLength(1);
  });

  test('an unknown format is accepted and ignored, without a warning on the console', () => {
    const warn = vi.spyOn(console, 'warn');
    const log = vi.spyOn(console, 'log');
    try {
      const schema = { type: 'string', format: 'plugsmith-made-up' };
      expect(checkJsonSchema(schema, ['argsSchema'])).toEqual([]);
      expect(validateAgainst(schema, 'anything', ['args'])).toEqual([]);
      expect(warn).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });
});
