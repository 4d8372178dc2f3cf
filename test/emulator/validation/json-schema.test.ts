import { describe, expect, test } from 'vitest';
import { checkJsonSchema, validateAgainst } from '../../../emulator/validation/json-schema.js';

describe('checkJsonSchema', () => {
  test.each([
    'http://json-schema.org/draft-07/schema#',
    'http://json-schema.org/draft-07/schema',
    'https://json-schema.org/draft-07/schema#',
    'https://json-schema.org/draft/2020-12/schema',
    'http://json-schema.org/draft/2020-12/schema',
    'https://json-schema.org/draft/2020-12/schema#',
  ])('accepts $schema %s', (uri) => {
    expect(checkJsonSchema({ $schema: uri, type: 'object', properties: { a: { type: 'string' } } }, ['inputsSchema'])).toEqual([]);
  });

  test('refuses other drafts and invalid schemas with details', () => {
    expect(checkJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' }, ['s'])[0].path).toEqual(['s', '$schema']);
    expect(checkJsonSchema({ type: 12 }, ['s']).length).toBeGreaterThan(0);
    expect(checkJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: 5 }, ['s']).length).toBeGreaterThan(0);
  });

  test('a 2020-12 schema written with http validates values by 2020-12 rules', () => {
    const schema = { $schema: 'http://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] };
    expect(validateAgainst(schema, ['a'], ['v'])).toEqual([]);
    expect(validateAgainst(schema, [1], ['v']).length).toBeGreaterThan(0);
  });
});
