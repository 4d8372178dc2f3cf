import { lstat, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePrivateFile } from '../../src/shared/private-file.js';
import { tempDir } from '../kit/index.js';

describe('writePrivateFile', () => {
  it('replaces what is there by default (a link too, never followed), owner-only', async () => {
    const dir = await tempDir('plugsmith-private-file-');
    const target = join(dir, 'outside.txt');
    await writeFile(target, 'not yours');
    await symlink(target, join(dir, 'key.json'));
    await writePrivateFile(join(dir, 'key.json'), 'new');
    expect(await readFile(target, 'utf8')).toBe('not yours');
    expect((await lstat(join(dir, 'key.json'))).isFile()).toBe(true);
    expect((await stat(join(dir, 'key.json'))).mode & 0o777).toBe(0o600);
  });

  it('with replace: false, keeps a file or a link already there, and of writers racing for one name exactly one wins', async () => {
    const dir = await tempDir('plugsmith-private-file-');
    await writeFile(join(dir, 'old.json'), 'old');
    await expect(
      writePrivateFile(join(dir, 'old.json'), 'new', { replace: false }),
    ).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(join(dir, 'old.json'), 'utf8')).toBe('old');
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling.json'));
    await expect(
      writePrivateFile(join(dir, 'dangling.json'), 'new', { replace: false }),
    ).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readlink(join(dir, 'dangling.json'))).toBe(join(dir, 'nowhere'));

    const name = join(dir, 'raced.json');
    const writers = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        writePrivateFile(name, `writer ${i}`, { replace: false }),
      ),
    );
    const won = writers.flatMap((w, i) => (w.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const w of writers)
      if (w.status === 'rejected') expect(w.reason).toMatchObject({ code: 'EEXIST' });
    expect(await readFile(name, 'utf8')).toBe(`writer ${won[0]}`);
    expect((await stat(name)).mode & 0o777).toBe(0o600);
    // No temporary file is left behind by the writers that lost.
    expect((await readdir(dir)).sort()).toEqual(['dangling.json', 'old.json', 'raced.json']);
  });
});
