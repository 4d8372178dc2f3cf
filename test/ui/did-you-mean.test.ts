import { describe, expect, test } from 'vitest';
import { closest, didYouMean, editDistance } from '../../src/ui/did-you-mean.js';

describe('closest', () => {
  test('counts a swap of neighbours as one edit', () => {
    expect(editDistance('tirgger', 'trigger')).toBe(1);
    expect(editDistance('verfy', 'verify')).toBe(1);
    expect(editDistance('same', 'same')).toBe(0);
  });

  test('picks the closest, every one on a tie, none past three edits', () => {
    expect(closest('lst', ['list', 'get', 'create'])).toEqual(['list']);
    expect(closest('fils', ['files', 'fails', 'logs'])).toEqual(['fails', 'files']);
    expect(closest('abcdefgh', ['zyxwvuts'])).toEqual([]);
    expect(didYouMean('lst', ['list'])).toBe('\n(Did you mean list?)');
    expect(didYouMean('fils', ['files', 'fails'])).toBe('\n(Did you mean one of fails, files?)');
    expect(didYouMean('zzz', ['list'])).toBe('');
  });
});
