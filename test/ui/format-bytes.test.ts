import { describe, expect, test } from 'vitest';
import { formatBytes } from '../../src/ui/progress.js';

describe('formatBytes', () => {
  test('binary sizes carry binary unit names (KiB, MiB), as the limits they are compared with', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(100 * 1024 * 1024)).toBe('100 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });
});
