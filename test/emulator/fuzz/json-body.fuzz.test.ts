import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseJsonBody } from '../../../emulator/json-body.js';

// Key counts (issue 24): objects and arrays are counted in the body's text before it is parsed, so
// a body of 60,000 keys is refused without paying for the parse. The count in the text must agree
// with the parsed value whatever the strings hold (quotes, backslashes, brackets) and the spacing.

function oversized(value: unknown, maxItems: number, maxKeys: number): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const children = Array.isArray(v) ? v : Object.values(v);
    if (children.length > (Array.isArray(v) ? maxItems : maxKeys)) return true;
    stack.push(...children);
  }
  return false;
}

const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('"', '\\', '\\"', '{', '}', '[', ']', ',', '{"a":1,"b":2}', '\\\\"', ':'),
);
const valueArb = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky,
    fc.integer(),
    fc.constantFrom(null, true, false, 1.5e-7),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('key and item counts in the text', () => {
  test('agree with the parsed value, whatever the strings hold and however it is spaced', () => {
    fc.assert(
      fc.property(
        valueArb,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom(undefined, 1, '\t', ' \r\n'),
        (value, maxArrayItems, maxObjectKeys, space) => {
          const text = JSON.stringify({ body: value }, null, space as never);
          const expected = oversized({ body: value }, maxArrayItems, Math.max(1, maxObjectKeys));
          let refused: string | null = null;
          try {
            parseJsonBody(text, { maxArrayItems, maxObjectKeys: Math.max(1, maxObjectKeys) });
          } catch (error) {
            refused =
              (error as { details?: Array<{ code: string }> }).details?.[0]?.code ?? 'other';
          }
          const capped = refused === 'too_many_items' || refused === 'too_many_keys';
          expect(capped, `${text} → ${refused}`).toBe(expected);
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
