import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  boundedFormats,
  fullFormats,
  linearUrl,
  MAX_FORMAT_LENGTH,
} from '../../../emulator/validation/formats.js';
import { validateAgainst } from '../../../emulator/validation/json-schema.js';

// Formatted strings (issue 24): every JSON Schema `format` judges as ajv-formats does on values up
// to MAX_FORMAT_LENGTH (the bounded checks change no verdict there), and long adversarial values of
// every format are judged (a 400-style detail, never a throw). How long they take is measured in
// `npm run bench -- --only security`; a backtracking check would run past this file's timeout.

function original(name: string): (value: string) => boolean {
  const f = fullFormats[name] as
    | RegExp
    | ((s: string) => boolean)
    | { validate: RegExp | ((s: string) => boolean) };
  const check = typeof f === 'object' && !(f instanceof RegExp) ? f.validate : f;
  return (value) => {
    if (check instanceof RegExp) {
      check.lastIndex = 0;
      return check.test(value);
    }
    return check(value);
  };
}

const FORMATS = Object.keys(boundedFormats);

/** Pieces of values of every format, valid and not, so random joins often land near the boundary. */
const PIECES = [
  'a',
  'Z',
  '0',
  '1',
  '9',
  '25',
  '255',
  '256',
  '.',
  '-',
  '_',
  ':',
  '::',
  '/',
  '//',
  '@',
  '%',
  '%20',
  '%zz',
  '~',
  '~0',
  '~1',
  '#',
  '?',
  '&',
  '=',
  '+',
  ' ',
  '\n',
  '{',
  '}',
  '{a}',
  '{+a,b*}',
  '(',
  ')',
  '[',
  ']',
  '\\',
  '\\Z',
  '*',
  'é',
  '😀',
  'T',
  't',
  'Z',
  'z',
  'P',
  'Y',
  'M',
  'W',
  'D',
  'H',
  'S',
  '2024-02-29',
  '2023-02-29',
  '23:59:60',
  '10:00:00',
  '.5',
  '+02:00',
  'http://',
  'https://',
  'ftp://',
  'mailto:',
  'urn:uuid:',
  'example.com',
  'user:pw@',
  '10.0.0.1',
  '192.168.1.1',
  '1.2.3.4',
  'ffff',
  '123e4567-e89b-12d3-a456-426614174000',
  'AAAA',
  'aGk=',
  '==',
  'x.co',
];
const valueArb = fc
  .array(fc.constantFrom(...PIECES), { maxLength: 12 })
  .map((parts) => parts.join(''));

/** Long values: a prefix, one or two pieces repeated thousands of times, a breaking suffix. */
const longArb = fc
  .tuple(
    fc.constantFrom('', 'http://', 'a:', '#/', '0', '2020-01-01T00:00:00.', 'P', 'a@', '{', '['),
    fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 2 }),
    fc.integer({ min: 2_000, max: 64_000 }),
    fc.constantFrom('', ' ', '!', '\\', '"', '@'),
  )
  .map(
    ([prefix, unit, length, suffix]) =>
      prefix + unit.join('').repeat(Math.ceil(length / Math.max(1, unit.join('').length))) + suffix,
  );

describe('formatted strings', () => {
  test('every format judges values up to the cap as ajv-formats does', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORMATS), valueArb, (format, value) => {
        const expected = original(format)(value);
        expect(
          validateAgainst({ type: 'string', format }, value, ['v']).length === 0,
          `${format} ${JSON.stringify(value)}`,
        ).toBe(expected);
      }),
      { numRuns: 20_000 },
    );
  });

  test('url: the linear check agrees with the expression it replaces', () => {
    const urlish = fc
      .tuple(
        fc.constantFrom('http://', 'HTTPS://', 'ftp://', 'http:/', '', 'http://u@', 'http://u:p@'),
        fc.array(
          fc.constantFrom(
            'a',
            '1',
            '0',
            '.',
            '-',
            ':',
            '@',
            '/',
            ' ',
            'é',
            '%',
            '?',
            '#',
            'co',
            '.com',
            '@a.co',
            '10.',
            '192.168.',
            '172.16',
            '255',
            ':80',
          ),
          { maxLength: 14 },
        ),
      )
      .map(([prefix, parts]) => prefix + parts.join(''));
    fc.assert(
      fc.property(urlish, (value) => {
        expect(linearUrl(value), value).toBe(original('url')(value));
      }),
      { numRuns: 50_000 },
    );
  });

  test('long adversarial values of every format are judged', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORMATS), longArb, (format, value) => {
        const details = validateAgainst(
          { type: 'object', properties: { v: { type: 'string', format } } },
          { v: value },
          ['inputs'],
        );
        // Over the cap every format but byte fails; byte is judged by its own (linear) expression.
        if (format !== 'byte' && value.length > MAX_FORMAT_LENGTH)
          expect(details[0]).toMatchObject({ code: 'format', path: ['inputs', 'v'] });
        else expect(details.length === 0).toBe(original(format)(value));
      }),
      { numRuns: 300 },
    );
  });
});
