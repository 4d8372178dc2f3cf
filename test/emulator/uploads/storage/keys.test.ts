import { describe, expect, it } from 'vitest';
import {
  attachment,
  encodeKeyPath,
  isPublicKey,
  keyProblem,
  objectKey,
} from '../../../../emulator/uploads/storage/keys.js';

describe('object keys', () => {
  it.each([
    ['private/f_1/report.pdf', null],
    ['public/f_1/naïve name (1).txt', null],
    ['', /empty/],
    ['/abs', /start with \//],
    ['a/../b', /\.\. segments/],
    ['..', /\.\. segments/],
    ['a/./b', /\. or \.\./],
    ['a//b', /empty segments/],
    ['a/', /empty segments/],
    ['a\\b', /\\/],
    ['a\u0000b', /control/],
    ['k'.repeat(1025), /1024 bytes/],
  ])('%j is %s', (key, problem) => {
    if (problem === null) expect(keyProblem(key)).toBeNull();
    else expect(keyProblem(key)).toMatch(problem);
  });

  it('builds upload keys that carry visibility, id and a safe name', () => {
    expect(objectKey('f_1', 'report.pdf', true)).toBe('public/f_1/report.pdf');
    expect(objectKey('f_1', 'report.pdf', false)).toBe('private/f_1/report.pdf');
    expect(objectKey('f_2', 'a/b\\c\u0001', false)).toBe('private/f_2/a_b_c_');
    expect(objectKey('f_3', '..', false)).toBe('private/f_3/_');
    const long = objectKey('f_4', 'é'.repeat(255), true);
    expect(Buffer.byteLength(long.split('/')[2])).toBe(200);
    expect(isPublicKey(objectKey('f_5', 'x', true))).toBe(true);
    expect(isPublicKey(objectKey('f_5', 'x', false))).toBe(false);
    expect(isPublicKey('publicity/x')).toBe(false);
  });

  it('encodes keys as URL paths segment by segment', () => {
    expect(encodeKeyPath("public/f_1/a b#?%(1)'.txt")).toBe(
      'public/f_1/a%20b%23%3F%25%281%29%27.txt',
    );
  });

  it('writes Content-Disposition plainly for ASCII names and with filename* otherwise', () => {
    expect(attachment('report.pdf')).toBe('attachment; filename="report.pdf"');
    expect(attachment('say "hi".txt')).toBe(
      `attachment; filename="say _hi_.txt"; filename*=UTF-8''say%20%22hi%22.txt`,
    );
    expect(attachment('日本.txt')).toBe(
      `attachment; filename="__.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`,
    );
  });
});
